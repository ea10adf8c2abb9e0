import { describe, expect, it } from "vitest";
import { ELSEWHERE_LINE } from "../../src/core/buttons/place.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { findButton } from "../adapters/slack/payloads.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import type { FakeMessage } from "../fakes/telegram-api.js";
import {
  ADMIN,
  type Bot,
  createWorld,
  eventually,
  OPERATOR,
  TG_CHAT,
  type World,
} from "../support/app-world.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * A button works only in the conversation (and message) it was shown in. Its token replayed from
 * another Slack channel, as Telegram `callback_data`, or from another message of its own channel
 * is refused with one line, orders nothing, and is not spent: the real button still works. The
 * whole bot (`startApp`) against the sandbox, the fake Slack and the fake Telegram APIs.
 */
const CHANNEL = "C0OPS";
const OTHER_CHANNEL = "C0OTHER";
const VIEWER = { id: "U0VIEW", name: "vic" };

async function slackQuote(world: World, bot: Bot, seed: string): Promise<FakeSlackMessage> {
  const before = world.slack.channelMessages(CHANNEL).length;
  expect((await bot.command(`/energy ${tronAddress(seed)} 65k`)).status).toBe(200);
  const quote = await eventually(
    () =>
      world.slack
        .channelMessages(CHANNEL)
        .slice(before)
        .find((m) => buttonLabels(m).some((l) => /^Confirm/.test(l))),
    "the Slack quote",
  );
  // A copy: the fake edits its own message in place when the outcome replaces it.
  return structuredClone(quote);
}

const slackToken = (message: FakeSlackMessage): string => String(findButton(message, /^Confirm/).value);

/** A message of the bot's in `channel` carrying a button whose value is `token` (what a forger would send). */
function slackMessageWith(token: string, channel: string, ts: string): FakeSlackMessage {
  const button = {
    type: "button",
    action_id: "opsbot:0",
    text: { type: "plain_text", text: "Confirm" },
    value: token,
  };
  return {
    ts,
    channel,
    text: "Energy quote",
    blocks: [{ type: "actions", block_id: "b1", elements: [button] }],
    via: "chat.postMessage",
    edits: 0,
  };
}

function telegramMessageWith(token: string, messageId: number): FakeMessage {
  return {
    message_id: messageId,
    chatId: String(TG_CHAT),
    text: "Energy quote",
    html: "Energy quote",
    replyMarkup: { inline_keyboard: [[{ text: "Confirm", callback_data: token }]] },
  };
}

const ephemeralTexts = (world: World, userId: string, channel: string): string[] =>
  world.slack
    .ephemerals(userId)
    .filter((m) => m.channel === channel)
    .map((m) => messageText(m));

const toasts = (world: World) =>
  (world.telegram?.calls("answerCallbackQuery") ?? []).map(
    (c) => c.params as { text?: string; show_alert?: boolean },
  );

async function settled(bot: Bot): Promise<void> {
  await bot.app.drain(3_000);
  await quietPeriod(300);
}

describe("a button replayed elsewhere", () => {
  it("a Slack Confirm pressed from another channel or sent as Telegram callback_data is refused; at home it works", async () => {
    const world = await createWorld({ telegram: true });
    const bot = await world.start();
    const quote = await slackQuote(world, bot, "binding-slack-replay");
    const token = slackToken(quote);

    // The same message, as if shown in another channel.
    expect((await bot.click({ ...structuredClone(quote), channel: OTHER_CHANNEL }, /^Confirm/)).status).toBe(
      200,
    );
    await eventually(
      () => ephemeralTexts(world, OPERATOR.id, OTHER_CHANNEL).includes(ELSEWHERE_LINE),
      "the refusal in the other channel",
    );
    // The token as Telegram callback_data, pressed by a Telegram operator.
    expect((await bot.tap(telegramMessageWith(token, 9_001), "Confirm")).status).toBe(200);
    await eventually(() => toasts(world).find((t) => t.text === ELSEWHERE_LINE), "the refusal on Telegram");
    await settled(bot);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);
    expect(world.slack.channelMessages(OTHER_CHANNEL)).toEqual([]);
    expect(world.telegram?.messages(TG_CHAT)).toEqual([]);
    expect(world.telegram?.calls("editMessageText")).toEqual([]);

    // Not spent: in its own channel it places the order and replaces its own message.
    expect((await bot.click(quote, /^Confirm/)).status).toBe(200);
    await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits >= 1),
      "the outcome replacing the quote",
    );
    await settled(bot);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    const outcome = world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts);
    expect(messageText(outcome)).toMatch(/Energy delegated/);
  });

  it("a Telegram Confirm pressed in Slack is refused; in its own chat it works", async () => {
    const world = await createWorld({ telegram: true });
    const bot = await world.start();
    expect((await bot.say(`/energy ${tronAddress("binding-telegram-replay")} 65k`)).status).toBe(200);
    const quote = structuredClone(
      await eventually(
        () => world.telegram?.messages(TG_CHAT).find((m) => m.replyMarkup),
        "the Telegram quote",
      ),
    );
    const token = quote.replyMarkup?.inline_keyboard
      .flat()
      .find((b) => /^Confirm/.test(b.text))?.callback_data;
    expect(token).toBeTruthy();

    const forged = slackMessageWith(token ?? "", CHANNEL, "1700000000.000100");
    expect((await bot.click(forged, "Confirm")).status).toBe(200);
    await eventually(
      () => ephemeralTexts(world, OPERATOR.id, CHANNEL).includes(ELSEWHERE_LINE),
      "the refusal in Slack",
    );
    await settled(bot);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);
    expect(world.slack.channelMessages(CHANNEL)).toEqual([]);

    expect((await bot.tap(quote, /^Confirm/)).status).toBe(200);
    await eventually(() => world.sandbox.calls("order5m.create").length === 1, "the order");
    const after = await eventually(
      () =>
        world.telegram
          ?.messages(TG_CHAT)
          .find((m) => m.message_id === quote.message_id && /^Energy delegated/.test(m.text)),
      "the outcome replacing the Telegram quote",
    );
    expect(after.replyMarkup).toBeUndefined();
  });

  it("bound to the first message it was pressed in: a copy in another message of the channel is refused", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const quote = await slackQuote(world, bot, "binding-message");
    // A viewer presses the real button first: refused for the role, but the group is now bound there.
    await bot.click(quote, /^Confirm/, { user: VIEWER });
    await eventually(() => ephemeralTexts(world, VIEWER.id, CHANNEL).length === 1, "the viewer's refusal");
    expect(ephemeralTexts(world, VIEWER.id, CHANNEL)[0]).toMatch(/operator/);

    const copy = slackMessageWith(slackToken(quote), CHANNEL, "1700000000.000200");
    await bot.click(copy, "Confirm");
    await eventually(
      () => ephemeralTexts(world, OPERATOR.id, CHANNEL).includes(ELSEWHERE_LINE),
      "the refusal for the other message",
    );
    await settled(bot);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);

    await bot.click(quote, /^Confirm/);
    await eventually(
      () => world.sandbox.calls("order5m.create").length === 1,
      "the order from the real button",
    );
  });
});

describe("the Slack once-only mark of a click", () => {
  it("two different clicks with the same action_ts and action_id both run (other message, other user)", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const first = await slackQuote(world, bot, "dedup-first");
    const second = await slackQuote(world, bot, "dedup-second");
    const actionTs = "1700000042.000100";
    // One user, two messages, the same instant: two orders.
    expect((await bot.click(first, /^Confirm/, { actionTs })).status).toBe(200);
    expect((await bot.click(second, /^Confirm/, { actionTs })).status).toBe(200);
    await eventually(() => world.sandbox.calls("order5m.create").length === 2, "both orders");
    // Another user, the same message and instant: not a Slack retry, so it is answered.
    expect((await bot.click(first, /^Confirm/, { user: ADMIN, actionTs })).status).toBe(200);
    await eventually(
      () => ephemeralTexts(world, ADMIN.id, CHANNEL).includes("Already handled."),
      "the second user's answer",
    );
    await settled(bot);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(2);
  });
});
