import { afterEach, describe, expect, it } from "vitest";
import { STORE_UNAVAILABLE_LINE } from "../../src/core/faults/store-unavailable.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { createWorld, eventually, OPERATOR, TG_CHAT, type World } from "../support/app-world.js";
import { type PrivateRedis, startPrivateRedis } from "../support/processes.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Redis going down under the whole bot: a redis-server of this test's own, stopped and started
 * again. A command or a click that arrives meanwhile is told in one line that nothing was done
 * (in the slash command's HTTP answer, by response_url, by sendMessage, by the callback answer),
 * runs nothing, and a webhook is not acknowledged, so the service sends it again.
 */
let redis: PrivateRedis | undefined;
afterEach(async () => {
  await redis?.close();
  redis = undefined;
});

const CHANNEL = "C0OPS";

const publicTexts = (world: World): string[] =>
  world.slack.channelMessages(CHANNEL).map((m) => messageText(m));

async function quotes(world: World, bot: Awaited<ReturnType<World["start"]>>) {
  await bot.command(`/energy ${tronAddress("outage-slack")} 65k`);
  const slack = await eventually(
    () => world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /^Confirm/.test(l))),
    "the Slack quote",
  );
  await bot.say(`/energy ${tronAddress("outage-telegram")} 65k`);
  const telegram = await eventually(
    () => world.telegram?.messages(TG_CHAT).find((m) => m.replyMarkup),
    "the Telegram quote",
  );
  return { slack: structuredClone(slack), telegram: structuredClone(telegram) };
}

describe("the store down", () => {
  it("commands and clicks get one line and run nothing; webhooks are not acknowledged; all works again after", async () => {
    redis = await startPrivateRedis();
    const world = await createWorld({ redis: { url: redis.url, prefix: "outage:" }, telegram: true });
    const bot = await world.start();
    const quote = await quotes(world, bot);
    const serviceCalls = world.sandbox.calls().length;
    const tgMessages = world.telegram?.messages(TG_CHAT).length ?? 0;

    await redis.stop();

    const command = await bot.command("/balance");
    expect(command.status).toBe(200);
    // The ack waits on nothing but the signature; the line follows by the command's response_url.
    await eventually(
      () =>
        world.slack.ephemerals(OPERATOR.id).filter((m) => messageText(m) === STORE_UNAVAILABLE_LINE)
          .length === 1,
      "the line for the command, by response_url",
    );

    expect((await bot.click(quote.slack, /^Confirm/)).status).toBe(200);
    await eventually(
      () =>
        world.slack.ephemerals(OPERATOR.id).filter((m) => messageText(m) === STORE_UNAVAILABLE_LINE)
          .length === 2,
      "the line for the click, by response_url",
    );

    expect((await bot.say("/balance")).status).toBe(200);
    await eventually(
      () => world.telegram?.messages(TG_CHAT).find((m) => m.text === STORE_UNAVAILABLE_LINE),
      "the line for the Telegram command",
    );
    expect((await bot.tap(quote.telegram, /^Confirm/)).status).toBe(200);
    await eventually(
      () =>
        world.telegram
          ?.calls("answerCallbackQuery")
          .find((c) => c.params.text === STORE_UNAVAILABLE_LINE && c.params.show_alert === true),
      "the line for the Telegram click",
    );

    const hook = await bot.webhook(
      "orders",
      delegationEvent(7401, "A0outage0000001", tronAddress("outage-hook")),
    );
    expect(hook.status).toBe(503);

    // Nothing ran: no service call, no order, no public post, one Telegram message (the line).
    expect(world.sandbox.calls()).toHaveLength(serviceCalls);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);
    expect(publicTexts(world).filter((t) => /Account balance|Energy delegated/.test(t))).toEqual([]);
    expect(world.telegram?.messages(TG_CHAT)).toHaveLength(tgMessages + 1);

    await redis.start();
    await eventually(
      async () =>
        (await bot.webhook("orders", delegationEvent(7402, "A0outage0000002", tronAddress("x")))).status ===
        200,
      "a webhook stored again",
      20_000,
    );
    const again = await bot.command("/help");
    expect(again.status).toBe(200);
    expect(await again.text()).toBe("");
    await eventually(() => publicTexts(world).some((t) => /What I can do/.test(t)), "the Slack answer after");
    await bot.say("/help");
    await eventually(
      () => world.telegram?.messages(TG_CHAT).find((m) => /What I can do/.test(m.text)),
      "the Telegram answer after",
    );
  });
});
