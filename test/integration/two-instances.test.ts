import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { ADMIN, type Bot, createWorld, eventually, OPERATOR, type World } from "../support/app-world.js";
import { sampleValue, scrape } from "../support/prometheus.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Two real instances (`startApp` twice: same REDIS_URL and key prefix, each its own port), both
 * Slack-enabled against one fake Slack, both driving one service. Whatever reaches both, or
 * whatever both could pick up, happens once: a webhook, a button, the polling of a screening.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";
/** The screening stays pending this long; one poller reads it 2 s after the order, then 2 s later. */
const SCREENING_MS = 3_000;

async function twoBots(): Promise<{ world: World; a: Bot; b: Bot }> {
  const world = await createWorld({
    redis: { url: redis.url, prefix: redis.prefix },
    sandbox: { screening: { durationMs: SCREENING_MS, maxWaitMs: 200 }, energy: { order5mLatencyMs: 5 } },
  });
  const [a, b] = [await world.start(), await world.start()];
  expect(a.app.port).not.toBe(b.app.port);
  return { world, a, b };
}

const posted = (world: World, pattern: RegExp): FakeSlackMessage[] =>
  world.slack
    .channelMessages(CHANNEL)
    .filter((m) => m.via === "chat.postMessage" && pattern.test(messageText(m)));

async function counter(bot: Bot, name: string, labels: Record<string, string>): Promise<number> {
  return sampleValue((await scrape(bot.origin)).text, name, labels) ?? 0;
}

/** `/energy <address> 65k` on `bot`: its quote with a Confirm button, as posted (a copy). */
async function quoted(world: World, bot: Bot, address: string) {
  expect((await bot.command(`/energy ${address} 65k`)).status).toBe(200);
  return structuredClone(
    await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /Confirm/.test(l))),
      "the quote",
    ),
  );
}

describe("two instances on one Redis", () => {
  it("one click delivered to both (Slack's retry on the other instance) places one order and tells nobody it was handled", async () => {
    const { world, a, b } = await twoBots();
    const address = tronAddress("two-instances-retry");
    const quote = await quoted(world, a, address);
    // The same click (same user, action_ts and button), the second copy marked as Slack's retry.
    const click = { user: OPERATOR, actionTs: "1700000002.000100" };
    const [first, retry] = await Promise.all([
      a.click(quote, /^Confirm/, click),
      b.click(quote, /^Confirm/, { ...click, headers: { "x-slack-retry-num": "1" } }),
    ]);
    expect([first.status, retry.status]).toEqual([200, 200]);
    await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits >= 1),
      "the outcome replacing the quote",
    );
    await Promise.all([a.app.drain(2_000), b.app.drain(2_000)]);
    await quietPeriod(300);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(world.sandbox.energy.orders()).toHaveLength(1);
    // The copy that lost the once-only mark ran nothing at all: not even the button's "Already handled."
    expect(world.slack.ephemerals(OPERATOR.id).map((m) => messageText(m))).toEqual([]);
    expect(world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts)?.edits).toBe(1);
  });

  it("a Confirm clicked on both places one order; its webhook delivered to both is posted once", async () => {
    const { world, a, b } = await twoBots();
    const address = tronAddress("two-instances-energy");
    const quote = await quoted(world, a, address);
    // Two different clicks (two people, or one double click routed to two instances), at once.
    const [first, second] = await Promise.all([
      a.click(quote, /^Confirm/, { user: OPERATOR, actionTs: "1700000001.000100" }),
      b.click(quote, /^Confirm/, { user: ADMIN, actionTs: "1700000001.000200" }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits >= 1),
      "the outcome replacing the quote",
    );
    await a.app.drain(2_000);
    await quietPeriod(300);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(world.sandbox.energy.orders()).toHaveLength(1);
    // The click that lost the claim was told so, privately.
    const told = [OPERATOR, ADMIN].flatMap((u) => world.slack.ephemerals(u.id)).map((m) => messageText(m));
    expect(told).toEqual(["Already handled."]);
    const spent =
      (await counter(a, "opsbot_spend_trx_total", { platform: "slack" })) +
      (await counter(b, "opsbot_spend_trx_total", { platform: "slack" }));
    expect(spent * 1_000_000).toBe(world.sandbox.energy.orders()[0]?.costSun);

    const order = world.sandbox.energy.orders()[0]!;
    const event = delegationEvent(7301, order.orderId, address);
    const answers = await Promise.all([a.webhook("orders", event), b.webhook("orders", event)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await eventually(() => posted(world, new RegExp(order.orderId)).length > 0, "the delivery notification");
    await quietPeriod(500);
    expect(posted(world, new RegExp(order.orderId))).toHaveLength(1);
    // Each instance stored what it received; together they saw one delivery and one repeat.
    const results = async (result: string) =>
      (await counter(a, "opsbot_webhook_deliveries_total", { route: "orders", result })) +
      (await counter(b, "opsbot_webhook_deliveries_total", { route: "orders", result }));
    expect(await results("accepted")).toBe(1);
    expect(await results("duplicate")).toBe(1);
  });

  it("a pending screening is polled by one instance at a time, as often as one poller would", async () => {
    const { world, a, b } = await twoBots();
    const address = tronAddress("two-instances-screening");
    expect((await a.command(`/screen ${address}`)).status).toBe(200);
    await eventually(() => world.sandbox.calls("screening.create").length === 1, "the screening order");
    const order = world.sandbox.screening.orders()[0]!;
    // The first post about the address, and where the service's check stood when it appeared.
    const { result, status } = await eventually(
      () => {
        const result = posted(world, new RegExp(address.slice(0, 8)))[0];
        return result && { result, status: order.status };
      },
      "the screening result",
      15_000,
    );
    // Posted only once the check was done, and as its result.
    expect(status).toBe("completed");
    expect(messageText(result)).not.toMatch(/pending|still running/i);
    await quietPeriod(500);

    // One poller: one read while the check ran (still pending), one after it finished (final).
    // Two instances polling on their own would read twice as often, or twice at the same moment.
    const reads = world.sandbox.calls("screening.read");
    expect(reads).toHaveLength(2);
    expect(reads[0]!.at).toBeLessThan(order.completedAt!);
    expect(reads[1]!.at).toBeGreaterThanOrEqual(order.completedAt!);
    expect(posted(world, new RegExp(address.slice(0, 8))).filter((m) => m.ts === result.ts)).toHaveLength(1);
    const byBot = [
      await counter(a, "opsbot_service_call_seconds_count", { endpoint: "screening.read", status: "200" }),
      await counter(b, "opsbot_service_call_seconds_count", { endpoint: "screening.read", status: "200" }),
    ];
    expect(byBot[0]! + byBot[1]!).toBe(2);
  });
});
