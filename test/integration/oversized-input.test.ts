import { describe, expect, it } from "vitest";
import { ECHO_MAX_CHARS } from "../../src/core/parse/echo.js";
import { messageText } from "../adapters/slack/harness.js";
import { createWorld, eventually, OPERATOR, TG_CHAT } from "../support/app-world.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Too much input, sent the way each sender sends it (signed, with the secret header): a body far
 * over a route's limit is read to its end and answered 413, not cut off with a reset connection;
 * a command whose argument is a pasted document is answered with a short excerpt of it.
 */
const FIVE_MB = 5 * 1024 * 1024;

describe("oversized bodies", () => {
  it("a signed 5 MB request gets 413 on the webhook, Slack and Telegram routes, and nothing runs", async () => {
    const world = await createWorld({ telegram: true });
    const bot = await world.start();

    const event = {
      ...delegationEvent(7501, "A0oversized00001", "T".repeat(34)),
      padding: "x".repeat(FIVE_MB),
    };
    const hook = await bot.webhook("orders", event);
    expect(hook.status).toBe(413);

    const slack = await bot.command(`/help ${"x".repeat(FIVE_MB)}`);
    expect(slack.status).toBe(413);
    expect(await slack.text()).toBe("request body too large");

    const telegram = await bot.say(`/help ${"x".repeat(FIVE_MB)}`);
    expect(telegram.status).toBe(413);

    // The connection was not cut: the next request is served.
    expect((await bot.command("/help")).status).toBe(200);
    await eventually(() => world.slack.channelMessages("C0OPS").length === 1, "the help answer");
    expect(world.slack.ephemerals(OPERATOR.id)).toEqual([]);
    expect(world.telegram?.messages(TG_CHAT)).toEqual([]);
  });
});

describe("echoes of user input", () => {
  it("help <10 kB of text> echoes a short excerpt on Slack and Telegram", async () => {
    const world = await createWorld({ telegram: true });
    const bot = await world.start();
    const pasted = "y".repeat(10_000);

    expect((await bot.command(`/help ${pasted}`)).status).toBe(200);
    const [slackLine] = await eventually(
      () => world.slack.ephemerals(OPERATOR.id).length > 0 && world.slack.ephemerals(OPERATOR.id),
      "the Slack answer",
    );
    const slackText = messageText(slackLine);
    expect(slackText).toMatch(/^There is no command "y+…"\. Type \/help for the list\.$/);
    expect(slackText.length).toBeLessThan(ECHO_MAX_CHARS + 60);

    expect((await bot.say(`/help ${pasted}`)).status).toBe(200);
    const telegramLine = await eventually(() => world.telegram?.messages(TG_CHAT)[0], "the Telegram answer");
    expect(telegramLine.text).toMatch(/^There is no command "y+…"\. Type \/help for the list\.$/);
    expect(telegramLine.text.length).toBeLessThan(ECHO_MAX_CHARS + 60);
  });
});
