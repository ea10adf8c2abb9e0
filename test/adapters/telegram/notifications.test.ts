import { describe, expect, it } from "vitest";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { publicReply, text } from "../../../src/core/reply.js";
import { statementCsv } from "../../../src/sandbox/families/account/report-artifacts.js";
import { checkStatement } from "../../../src/sandbox/families/account/report-request.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening.js";
import { GROUP_CHAT, OPERATOR, PRIVATE_CHAT, startTelegramHarness } from "./harness.js";

const STATEMENT_ADDRESS = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";

describe("telegram: notifications that come later, in the same chat", () => {
  it("a screening slower than the wait: 'still running' now, the result posted into the same topic later", async () => {
    const h = await startTelegramHarness({ sandbox: { screening: { maxWaitMs: 60 } } });
    const address = DEMO_ADDRESSES.highRisk;
    h.sandbox.screening.setDuration(400, address);
    await h.postUpdate({
      update_id: 880_001,
      message: {
        message_id: 70,
        message_thread_id: 12,
        is_topic_message: true,
        date: Math.floor(Date.now() / 1000),
        chat: { id: GROUP_CHAT, type: "supergroup", title: "Ops", is_forum: true },
        from: OPERATOR,
        text: `/screen ${address}`,
        entities: [{ type: "bot_command", offset: 0, length: 7 }],
      },
    });
    await h.fake.waitFor(() => h.fake.messages(GROUP_CHAT).length === 1);
    const [first] = h.fake.messages(GROUP_CHAT);
    expect(first?.text).toMatch(/^Screening \S+ is still running; the result will be posted here\./);

    await h.fake.waitFor(() => h.fake.messages(GROUP_CHAT).length === 2, 5_000);
    const later = h.fake.messages(GROUP_CHAT)[1];
    expect(later?.text).toMatch(/^Screening: high risk\n/);
    expect(later?.text).toContain("Score: 8.4 / 10");
    expect(later?.threadId).toBe(12);
    expect(first?.threadId).toBe(12);
    expect(h.sandbox.calls("screening.create")).toHaveLength(1);
    expect(h.sandbox.calls("screening.read").length).toBeGreaterThanOrEqual(1);
  });

  it("/statement: ordered now, the file sent later with sendDocument, bytes as the service built them", async () => {
    const h = await startTelegramHarness();
    await h.say(`/statement ${STATEMENT_ADDRESS} 2025-01-01 2025-01-31`);
    await h.fake.waitFor(() => h.fake.calls("sendDocument").length === 1, 5_000);
    await h.settle();

    const messages = h.fake.messages(PRIVATE_CHAT);
    expect(messages[0]?.text).toMatch(
      /^Statement REP[A-Z0-9]{12} ordered; the file will be posted here when ready\./,
    );
    const documents = messages.filter((m) => m.document);
    expect(documents).toHaveLength(1);
    const document = documents[0]?.document;
    expect(document?.filename).toBe(`statement-${STATEMENT_ADDRESS}-2025-01-01-2025-01-31.csv`);
    // The CSV the sandbox built for the request it recorded (the bot posts it decompressed).
    const [ordered, ...again] = h.sandbox.calls("reports.statement");
    expect(again).toEqual([]);
    const request = checkStatement(ordered?.body);
    if (!request.ok) throw new Error("the sandbox refused the statement request");
    expect(request.value).toMatchObject({
      address: STATEMENT_ADDRESS,
      date_from: "2025-01-01",
      date_to: "2025-01-31",
    });
    expect(document?.bytes.toString("utf8")).toBe(statementCsv(request.value));
    expect(h.fake.calls("sendDocument")[0]?.params.chat_id).toBe(String(PRIVATE_CHAT));
  });
});

describe("telegram: ChatAdapter.send, as the notify worker calls it", () => {
  const chat: ConversationRef = { platform: "telegram", id: String(GROUP_CHAT) };
  const reply = publicReply("Order 5M1 delivered", [text("Order 5M1 delivered")]);

  it("posts and returns the message id", async () => {
    const h = await startTelegramHarness();
    const { messageId } = await h.adapter.send(chat, reply);
    expect(h.fake.messages(GROUP_CHAT).map((m) => [String(m.message_id), m.text])).toEqual([
      [messageId, "Order 5M1 delivered"],
    ]);
  });

  it("a 429 above the in-process bound carries retry_after to the queue as retryAfterMs", async () => {
    const h = await startTelegramHarness();
    h.fake.fail("sendMessage", { kind: "429", retryAfter: 120 });
    const error = await h.adapter.send(chat, reply).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryAfterMs: 120_000, retryable: true, code: "telegram_rate_limited" });
    expect(h.fake.calls("sendMessage").map((c) => c.status)).toEqual([429]);
  });

  it("a chat that blocked or removed the bot is permanent: retryable false", async () => {
    const h = await startTelegramHarness();
    h.fake.refuseChat(GROUP_CHAT);
    await expect(h.adapter.send(chat, reply)).rejects.toMatchObject({
      retryable: false,
      code: "telegram_chat_gone",
    });
    h.fake.refuseChat(GROUP_CHAT, 400, "Bad Request: chat not found");
    await expect(h.adapter.send(chat, reply)).rejects.toMatchObject({
      retryable: false,
      code: "telegram_chat_gone",
    });
  });

  it("an outage (500) stays retryable, and the notify queue delivers once Telegram is back", async () => {
    const h = await startTelegramHarness();
    h.fake.fail("sendMessage", { kind: "500" });
    await expect(h.adapter.send(chat, reply)).rejects.toMatchObject({
      retryable: true,
      code: "telegram_unavailable",
    });

    h.fake.fail("sendMessage", { kind: "500" }, 2);
    await h.deps.notifier.post(chat, reply);
    await h.fake.waitFor(() => h.fake.messages(GROUP_CHAT).length === 1, 5_000);
    expect(h.fake.calls("sendMessage").map((c) => c.status)).toEqual([500, 500, 500, 200]);
  });
});
