import { describe, expect, it } from "vitest";
import { publicReply, text } from "../../src/core/reply.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { ADMIN, type Bot, createWorld, eventually, TG_CHAT, type World } from "../support/app-world.js";

/**
 * Follow-ups in a thread, through the whole bot (`startApp`), real Bolt and grammY against the
 * fake chat APIs, and the sandbox sending its real signed webhooks: the delivery of an order
 * confirmed in a channel lands in the thread of the message that shows the order.
 */
const CHANNEL = "C0OPS";

async function setUp(world: World): Promise<Bot> {
  const bot = await world.start();
  // An admin registers the bot's receivers, so the sandbox sends its order webhooks to this bot.
  const reply = await bot.app.core.handle({
    kind: "command",
    actor: { platform: "slack", userId: ADMIN.id },
    conversation: { platform: "slack", id: "C0ADMIN" },
    text: "setup webhooks",
  });
  expect(reply.summary).toMatch(/regist/i);
  return bot;
}

async function confirmedOrder(world: World, bot: Bot, address: string): Promise<FakeSlackMessage> {
  await bot.command(`/energy ${address} 65k`);
  const quote = await eventually(
    () => world.slack.channelMessages(CHANNEL).find((m) => /Confirm/.test(JSON.stringify(m.blocks ?? []))),
    "the quote",
  );
  await bot.click(quote, /Confirm/);
  await eventually(
    () => /Energy ordered|ordered|paid/i.test(messageText(quote)) && quote.edits > 0 && quote,
    "the outcome in place of the quote",
  );
  return quote;
}

describe("follow-ups in the thread of the confirmed order", () => {
  it("Slack: the delivery webhook after Confirm is posted in the order's thread, not in the channel", async () => {
    const world = await createWorld({ sandbox: { energy: { order5mLatencyMs: 5, webhookDelayMs: 5 } } });
    const bot = await setUp(world);
    const order = await confirmedOrder(world, bot, tronAddress("thread-slack"));

    const delivered = await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => /Energy delivered/.test(messageText(m))),
      "the delivery notice",
    );
    expect(delivered.threadTs).toBe(order.ts);
    expect(delivered.via).toBe("chat.postMessage");
    // The channel itself shows the order once; nothing about the delivery outside the thread.
    const topLevel = world.slack.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined);
    expect(topLevel.filter((m) => /Energy delivered/.test(messageText(m)))).toEqual([]);
  });

  it("Slack: when the order's message is gone, the notice falls back to a plain post in the channel", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const slack = bot.app.deps;
    world.slack.deleteMessage(CHANNEL, "1700000000.000042");
    const reply = publicReply("Energy delivered: 65,000 energy", [text("Energy delivered")]);
    await slack.notifier.post({ platform: "slack", id: CHANNEL, threadId: "1700000000.000042" }, reply);
    const posted = await eventually(() => world.slack.channelMessages(CHANNEL)[0], "the fallback post");
    expect(posted.threadTs).toBeUndefined();
    expect(messageText(posted)).toContain("Energy delivered");
    const attempts = world.slack.calls("chat.postMessage").map((c) => c.params.thread_ts ?? null);
    expect(attempts).toEqual(["1700000000.000042", null]);
  });

  it("Slack: an alert about a threaded order shows its details in the thread and one short line in the channel", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const parent = "1700000000.000077";
    const reply = {
      ...publicReply("No on-chain delivery confirmation", [text("No on-chain delivery confirmation …")]),
      alert: "Delivery not confirmed after 10 min: energy order 123.",
    };
    await bot.app.deps.notifier.post({ platform: "slack", id: CHANNEL, threadId: parent }, reply);
    await eventually(() => world.slack.channelMessages(CHANNEL).length === 2, "thread post and channel line");
    const [details, line] = world.slack.channelMessages(CHANNEL);
    expect(details?.threadTs).toBe(parent);
    expect(line?.threadTs).toBeUndefined();
    expect(line?.text).toBe("Delivery not confirmed after 10 min: energy order 123.");
  });

  it("Telegram: the delivery after Confirm replies to the message that shows the order", async () => {
    const world = await createWorld({
      telegram: true,
      sandbox: { energy: { order5mLatencyMs: 5, webhookDelayMs: 5 } },
    });
    const bot = await setUp(world);
    const tg = world.telegram!;
    await bot.say(`/energy ${tronAddress("thread-telegram")} 65k`);
    const quote = await eventually(
      () =>
        tg
          .messages(TG_CHAT)
          .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => /Confirm/.test(b.text))),
      "the quote",
    );
    await bot.tap(quote, /Confirm/);
    const delivered = await eventually(
      () => tg.messages(TG_CHAT).find((m) => /Energy delivered/.test(m.text)),
      "the delivery notice",
    );
    expect(delivered.replyTo).toBe(quote.message_id);
  });

  it("Telegram: a reply to a deleted message is still posted, without the quote", async () => {
    const world = await createWorld({ telegram: true });
    const bot = await world.start();
    const tg = world.telegram!;
    tg.deleteMessage(TG_CHAT, 4242);
    const reply = publicReply("Energy delivered", [text("Energy delivered")]);
    await bot.app.deps.notifier.post({ platform: "telegram", id: String(TG_CHAT), replyTo: "4242" }, reply);
    const posted = await eventually(() => tg.messages(TG_CHAT)[0], "the fallback post");
    expect(posted.text).toContain("Energy delivered");
    expect(posted.replyTo).toBeUndefined();
    const [sent] = tg.calls("sendMessage");
    expect(sent?.params.reply_parameters).toEqual({ message_id: 4242, allow_sending_without_reply: true });
  });
});
