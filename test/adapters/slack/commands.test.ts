import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening.js";
import {
  ADMIN,
  CHANNEL,
  messageText,
  OPERATOR,
  type SlackHarness,
  startSlackHarness,
  VIEWER,
  waitFor,
} from "./harness.js";

const HOSTILE = "<!channel> <http://x|y> & *bold* `tick` @here";

/** The one message the channel got for a command, with the line that says who ran it. */
async function answerOf(h: SlackHarness, line: string, user = OPERATOR) {
  const { response } = await h.command(line, { user });
  expect(response.status).toBe(200);
  await h.settle();
  const messages = h.fake.channelMessages(CHANNEL);
  expect(messages, `answers in the channel after ${line}`).toHaveLength(1);
  return { message: messages[0], text: messageText(messages[0]) };
}

describe("slash commands: results go to the channel", () => {
  it("acks at once with an empty body and answers through the response_url", async () => {
    const h = await startSlackHarness();
    const { response } = await h.command("/help");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    await h.settle();
    expect(h.fake.calls("response_url").map((c) => c.params.response_type)).toEqual(["in_channel"]);
    expect(h.fake.calls("chat.postMessage")).toEqual([]);
    const [message] = h.fake.channelMessages(CHANNEL);
    expect(message?.via).toBe("response_url");
    expect(messageText(message)).toContain("What I can do");
    expect(messageText(message)).toContain(`<@${OPERATOR.id}> ran \`/help\``);
  });

  it("prices: read from the service and rendered as Block Kit", async () => {
    const h = await startSlackHarness();
    const { message, text } = await answerOf(h, "/prices");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);
    expect(message?.blocks?.[1]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "Prices", emoji: true },
    });
    expect(text).toMatch(/energy/i);
    expect(message?.text).toMatch(/\S/);
  });

  it("balance: a viewer may read it", async () => {
    const h = await startSlackHarness();
    const { text } = await answerOf(h, "/balance", VIEWER);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    expect(text).toContain("Account balance");
    expect(text).toContain("*Balance*\n500 TRX");
  });

  it("compliance: one address, and the umbrella /ops form runs the same verb", async () => {
    const h = await startSlackHarness();
    const { text } = await answerOf(h, `/ops compliance ${DEMO_ADDRESSES.sanctioned}`);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
    expect(text).toContain("Blocked: aml_risk");
    expect(text).toContain(`\`${DEMO_ADDRESSES.sanctioned}\``);
    expect(text).toContain(`ran \`/ops compliance ${DEMO_ADDRESSES.sanctioned}\``);
  });

  it("compliance: hostile text from the service is shown inert", async () => {
    const h = await startSlackHarness();
    const address = DEMO_ADDRESSES.lowRisk;
    h.sandbox.inject("compliance.lookup", {
      kind: "reply",
      reply: {
        status: 200,
        json: {
          code: 0,
          status: "success",
          data: {
            address,
            blocked: true,
            category: "aml_risk",
            label: HOSTILE,
            checked_at: "2025-03-01T12:00:00Z",
          },
        },
      },
    });
    const { message, text } = await answerOf(h, `/compliance ${address}`);
    expect(text).toContain("&lt;!channel&gt; &lt;http://x|y&gt; &amp; ∗bold∗ ˋtickˋ @\u2060here");
    const raw = JSON.stringify(message?.blocks);
    expect(raw).not.toContain("<!channel>");
    expect(raw).not.toContain("<http://x|y>");
    expect(raw).not.toContain("*bold*");
  });

  it("screen: a 15-second check is acked at once and answered when it finishes", async () => {
    const h = await startSlackHarness({ sandbox: { screening: { durationMs: 300 } } });
    const { response } = await h.command(`/screen ${DEMO_ADDRESSES.lowRisk}`);
    expect(response.status).toBe(200);
    // The ack came back before the answer existed: it did not wait for the 300 ms check.
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    await h.settle();
    expect(h.sandbox.calls("screening.create")).toHaveLength(1);
    const text = messageText(h.fake.channelMessages(CHANNEL)[0]);
    expect(text).toContain("Level");
    expect(text).toContain("low risk");
  });

  it("shows 'Working on it…' privately when the answer takes longer than the notice delay", async () => {
    const h = await startSlackHarness({ workingNoticeMs: 50, sandbox: { screening: { durationMs: 300 } } });
    await h.command(`/screen ${DEMO_ADDRESSES.lowRisk}`);
    await h.settle();
    expect(h.fake.ephemerals(OPERATOR.id).map((m) => m.text)).toEqual(["Working on it…"]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);

    const quick = await startSlackHarness({ workingNoticeMs: 1_000 });
    await quick.command("/help");
    await quick.settle();
    expect(quick.fake.ephemerals(OPERATOR.id)).toEqual([]);
  });
});

describe("slash commands: errors only to the user who typed", () => {
  it("bad input, an unknown verb and a refused role are ephemeral; the channel sees nothing", async () => {
    const h = await startSlackHarness();
    await h.command("/compliance not-an-address");
    await h.command("/ops frobnicate");
    await h.command(`/energy ${DEMO_ADDRESSES.lowRisk} 65k`, { user: VIEWER });
    await h.settle();

    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    expect(h.fake.calls("response_url").map((c) => c.params.response_type)).toEqual([
      "ephemeral",
      "ephemeral",
      "ephemeral",
    ]);
    const mine = h.fake.ephemerals(OPERATOR.id).map(messageText);
    expect(mine).toHaveLength(2);
    expect(mine[1]).toMatch(/unknown command "frobnicate"/);
    const viewers = h.fake.ephemerals(VIEWER.id).map(messageText);
    expect(viewers).toEqual([expect.stringContaining(`needs the operator role; you are a viewer`)]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
  });

  it("an admin-only command is refused to an operator, and runs for an admin (its answer is private)", async () => {
    const h = await startSlackHarness();
    await h.command("/setup status");
    await h.settle();
    expect(h.fake.ephemerals(OPERATOR.id).map(messageText)).toEqual([
      expect.stringContaining("needs the admin role; you are an operator"),
    ]);
    expect(h.sandbox.calls()).toEqual([]);

    await h.command("/setup status", { user: ADMIN });
    await h.settle();
    expect(h.fake.ephemerals(ADMIN.id).map(messageText)).toEqual([
      expect.stringContaining("Webhook endpoints"),
    ]);
    expect(h.fake.channelMessages(CHANNEL)).toEqual([]);
    expect(h.sandbox.calls().length).toBeGreaterThan(0);
  });
});

describe("slash commands: where the answer goes when the response_url cannot be used", () => {
  it("a response_url of another origin is never called: the Web API answers instead", async () => {
    const h = await startSlackHarness();
    let called = false;
    const { createServer } = await import("node:http");
    const trap = createServer((_req, res) => {
      called = true;
      res.end("ok");
    });
    await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
    const address = trap.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const form = new URLSearchParams({
        team_id: h.fake.teamId,
        channel_id: CHANNEL,
        user_id: OPERATOR.id,
        user_name: OPERATOR.name,
        command: "/help",
        text: "",
        response_url: `http://localhost:${port}/steal`,
        trigger_id: "9.9.origin-test",
      });
      const bad = new URLSearchParams(form);
      bad.set("command", "/ops");
      bad.set("text", "frobnicate");
      bad.set("trigger_id", "9.9.origin-test-2");
      expect(
        (await h.post({ raw: form.toString(), contentType: "application/x-www-form-urlencoded" })).status,
      ).toBe(200);
      expect(
        (await h.post({ raw: bad.toString(), contentType: "application/x-www-form-urlencoded" })).status,
      ).toBe(200);
      await h.settle();
    } finally {
      await new Promise<void>((r) => trap.close(() => r()));
    }
    expect(called).toBe(false);
    expect(h.fake.calls("chat.postMessage").map((c) => c.params.channel)).toEqual([CHANNEL]);
    expect(h.fake.calls("chat.postEphemeral").map((c) => [c.params.channel, c.params.user])).toEqual([
      [CHANNEL, OPERATOR.id],
    ]);
    expect(h.logger.records.some((r) => /origin not allowed/.test(r.msg ?? ""))).toBe(true);
  });

  it("a failing response_url (500) falls back to chat.postMessage; Slack down too: queued and posted later", async () => {
    const h = await startSlackHarness();
    h.fake.fail("response_url", { kind: "500" });
    await h.command("/help");
    await h.settle();
    expect(h.fake.calls("chat.postMessage").map((c) => c.status)).toEqual([200]);
    expect(h.fake.channelMessages(CHANNEL)).toHaveLength(1);

    h.fake.fail("response_url", { kind: "500" });
    h.fake.fail("chat.postMessage", { kind: "500" }, 2);
    await h.command("/help");
    await waitFor(() => h.fake.channelMessages(CHANNEL).length === 2, "the queued answer");
    expect(h.fake.calls("chat.postMessage").map((c) => c.status)).toEqual([200, 500, 500, 200]);
  });
});
