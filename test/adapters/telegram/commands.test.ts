import { describe, expect, it } from "vitest";
import { refusalLine } from "../../../adapters/telegram/bot/handlers.js";
import { commands } from "../../../src/core/command-registry.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening.js";
import { parseTelegramHtml } from "../../fakes/telegram-html.js";
import {
  callbackUpdate,
  GROUP_CHAT,
  OPERATOR,
  PRIVATE_CHAT,
  STRANGER_CHAT,
  startTelegramHarness,
  VIEWER,
} from "./harness.js";

const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

describe("telegram commands", () => {
  it("/help lists every verb of the registry as a slash command, in HTML, without calling the service", async () => {
    const h = await startTelegramHarness();
    await h.say("/help");
    await h.settle();
    const [message, ...more] = h.fake.messages(PRIVATE_CHAT);
    expect(more).toEqual([]);
    expect(message?.html).toMatch(/^<b>What I can do<\/b>\n<code>\/help \[command\]<\/code>/);
    for (const c of commands.filter((c) => c.role !== "admin")) {
      expect(message?.text).toContain(`/${c.usage}`);
    }
    expect(message?.html).toContain("<code>/energy &lt;address&gt; &lt;amount&gt;</code>");
    expect(h.fake.calls("sendMessage")[0]?.params).toMatchObject({
      parse_mode: "HTML",
      chat_id: PRIVATE_CHAT,
    });
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("/start is help", async () => {
    const h = await startTelegramHarness();
    await h.say("/start");
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/^What I can do\n/);
  });

  it("/prices reads the price list from the service", async () => {
    const h = await startTelegramHarness();
    await h.say("/prices");
    await h.settle();
    const text = h.fake.messages(PRIVATE_CHAT)[0]?.text ?? "";
    expect(text).toMatch(/^Prices\n/);
    expect(text).toContain("Energy rental for 5 minutes · energy_5m");
    expect(text).toContain("provider_a: ");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);
  });

  it("/balance shows the account from the service", async () => {
    const h = await startTelegramHarness();
    await h.say("/balance");
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/^Account balance\nBalance: 500 TRX/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("/compliance gives the deny-list verdict", async () => {
    const h = await startTelegramHarness();
    await h.say(`/compliance ${DEMO_ADDRESSES.sanctioned}`);
    await h.settle();
    const text = h.fake.messages(PRIVATE_CHAT)[0]?.text ?? "";
    expect(text).toMatch(/^Blocked: aml_risk\n/);
    expect(text).toContain(`Address: ${DEMO_ADDRESSES.sanctioned}`);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
  });

  it("/screen screens the address and posts the result", async () => {
    const h = await startTelegramHarness();
    await h.say(`/screen ${DEMO_ADDRESSES.lowRisk}`);
    await h.settle();
    const text = h.fake.messages(PRIVATE_CHAT)[0]?.text ?? "";
    expect(text).toMatch(/^Screening: low risk\n/);
    expect(text).toContain("Score: 0.5 / 10");
    expect(h.sandbox.calls("screening.create")).toHaveLength(1);
  });

  it("an unknown command in a private chat gets the core's hint; plain text gets the slash hint", async () => {
    const h = await startTelegramHarness();
    await h.say("/balanse");
    await h.settle();
    await h.say("hello");
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT).map((m) => m.text)).toEqual([
      'unknown command "balanse" (did you mean balance?): type help to see what the bot can do',
      "Commands start with a slash: type /help to see what I can do.",
    ]);
    expect(h.sandbox.calls()).toEqual([]);
  });
});

describe("telegram commands in groups", () => {
  it("/cmd@thisbot works and quotes the command; /cmd@otherbot and unknown /cmd are ignored", async () => {
    const h = await startTelegramHarness();
    await h.say("/balance@otherbot", { chat: GROUP_CHAT });
    await h.say("/dice", { chat: GROUP_CHAT });
    await h.say("good morning", { chat: GROUP_CHAT });
    await h.settle();
    expect(h.fake.calls("sendMessage")).toEqual([]);
    expect(h.sandbox.calls()).toEqual([]);

    await h.say("/balance@OpsBot_Test_Bot", { chat: GROUP_CHAT, updateId: 555_001 });
    await h.settle();
    await h.say("/balanse@opsbot_test_bot", { chat: GROUP_CHAT });
    await h.settle();
    const [balance, unknown] = h.fake.messages(GROUP_CHAT);
    expect(balance?.text).toMatch(/^Account balance\n/);
    expect(balance?.replyTo).toBe(555_001);
    expect(unknown?.text).toMatch(/^unknown command "balanse"/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("roles come from OPS_* by Telegram user id: a viewer's /energy is refused with the entry to add", async () => {
    const h = await startTelegramHarness();
    await h.say(`/energy ${USDT} 65k`, { chat: GROUP_CHAT, from: VIEWER });
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT).map((m) => m.text)).toEqual([
      `energy needs the operator role; you are a viewer. Ask an admin to add telegram:${VIEWER.id} to OPS_OPERATORS.`,
    ]);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("answers in the forum topic the command came from", async () => {
    const h = await startTelegramHarness();
    await h.postUpdate({
      update_id: 777_001,
      message: {
        message_id: 41,
        message_thread_id: 9,
        is_topic_message: true,
        date: Math.floor(Date.now() / 1000),
        chat: { id: GROUP_CHAT, type: "supergroup", title: "Ops", is_forum: true },
        from: VIEWER,
        text: "/help",
        entities: [{ type: "bot_command", offset: 0, length: 5 }],
      },
    });
    await h.settle();
    expect(h.fake.messages(GROUP_CHAT).map((m) => m.threadId)).toEqual([9]);
  });
});

describe("telegram: only allowed chats are served", () => {
  it("another chat gets one refusal line and nothing else: no core, no service call", async () => {
    const h = await startTelegramHarness();
    await h.say("/balance@opsbot_test_bot", { chat: STRANGER_CHAT });
    await h.settle();
    await h.say("hello everyone", { chat: STRANGER_CHAT });
    await h.say("/balance@otherbot", { chat: STRANGER_CHAT });
    await h.settle();
    expect(h.fake.messages(STRANGER_CHAT).map((m) => m.text)).toEqual([refusalLine(STRANGER_CHAT)]);
    expect(h.fake.calls("sendMessage")).toHaveLength(1);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("a button press from another chat is answered with the refusal, and nothing runs", async () => {
    const h = await startTelegramHarness();
    const message = { message_id: 5, chatId: String(STRANGER_CHAT), text: "old", html: "old" };
    await h.postUpdate(callbackUpdate(message, "AAAAAAAAAAAAAAAAAAAAAA", OPERATOR));
    await h.settle();
    expect(h.fake.calls("answerCallbackQuery").map((c) => c.params)).toEqual([
      { callback_query_id: expect.any(String), text: refusalLine(STRANGER_CHAT), show_alert: true },
    ]);
    expect(h.fake.calls("sendMessage")).toEqual([]);
    expect(h.fake.calls("editMessageText")).toEqual([]);
  });

  it("a private chat that is not allowed is refused too", async () => {
    const h = await startTelegramHarness({ allowedChats: [GROUP_CHAT] });
    await h.say("/balance");
    await h.settle();
    expect(h.fake.messages(PRIVATE_CHAT).map((m) => m.text)).toEqual([refusalLine(PRIVATE_CHAT)]);
    expect(h.sandbox.calls()).toEqual([]);
  });
});

describe("telegram: text from outside is escaped", () => {
  it("a service message with <, > and & is shown as written, never as markup", async () => {
    const h = await startTelegramHarness();
    h.sandbox.inject("pricing.get", {
      kind: "reply",
      reply: { status: 400, json: { message: 'bad <b>tier</b> & <a href="https://evil.example">x</a>' } },
    });
    await h.say("/prices");
    await h.settle();
    const [message] = h.fake.messages(PRIVATE_CHAT);
    expect(message?.text).toBe(
      'The service refused: bad <b>tier</b> & <a href="https://evil.example">x</a> (HTTP 400).',
    );
    expect(message?.html).toContain(
      'bad &lt;b&gt;tier&lt;/b&gt; &amp; &lt;a href="https://evil.example"&gt;x&lt;/a&gt;',
    );
    // Telegram's own parser (the fake's) accepted it: nothing in it is a tag.
    expect(parseTelegramHtml(message?.html ?? "")).toEqual({ ok: true, text: message?.text });
  });
});
