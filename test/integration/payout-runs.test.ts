import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { ADMIN, createWorld, eventually, OPERATOR } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * Payout runs on real instances (`startApp`, one fake Slack, one service). Two instances on one
 * Redis: a Confirm clicked on both places one orchestrator order, the run is followed by one
 * poller at a time, and its outcome takes the quote's place once. The run's delivery webhooks go
 * into the quote's thread, coalesced.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());
const CHANNEL = "C0OPS";

describe("payout runs on real instances", () => {
  it("two instances: Confirm on both → one order, one poller, one outcome in place", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      sandbox: { energy: { orchestratorStepMs: 600 } },
    });
    const [a, b] = [await world.start(), await world.start()];
    const list = [1, 2, 3, 4, 5, 6].map((n) => tronAddress(`two-payout-${process.pid}-${n}`));
    expect((await a.command(`/energy 65k ${list.join(" ")}`)).status).toBe(200);
    const quote = structuredClone(
      await eventually(
        () =>
          world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /^Confirm/.test(l))),
        "the quote",
      ),
    );
    const [first, second] = await Promise.all([
      a.click(quote, /^Confirm/, { user: OPERATOR, actionTs: "1700000002.000100" }),
      b.click(quote, /^Confirm/, { user: ADMIN, actionTs: "1700000002.000200" }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .find((m) => m.ts === quote.ts && /Payout run delivered/.test(messageText(m))),
      "the outcome in the quote's place",
      30_000,
    );
    await quietPeriod(1_000);
    expect(world.sandbox.calls("orchestrator.create")).toHaveLength(1);
    expect(world.sandbox.energy.orders().filter((o) => list.includes(o.receiveAddress))).toHaveLength(6);
    expect(world.slack.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined)).toHaveLength(1);
    // One poller at a time: status reads never two within the poll ramp's first step (2 s).
    const reads = world.sandbox.calls("orchestrator.status").map((c) => c.at);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!).toBeGreaterThanOrEqual(1_500);
  }, 60_000);

  it("the run's delivery webhooks go into the quote's thread, coalesced: never one top-level message per address", async () => {
    const world = await createWorld({ sandbox: { energy: { orchestratorStepMs: 20 } } });
    const bot = await world.start();
    const list = Array.from({ length: 12 }, (_, n) => tronAddress(`thread-payout-${process.pid}-${n}`));
    expect((await bot.command(`/energy 65k ${list.join(" ")}`)).status).toBe(200);
    const quote = structuredClone(
      await eventually(
        () =>
          world.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).some((l) => /^Confirm/.test(l))),
        "the quote",
      ),
    );
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .find((m) => m.ts === quote.ts && /Payout run delivered/.test(messageText(m))),
      "the outcome",
      30_000,
    );
    const orders = world.sandbox.energy.orders().filter((o) => list.includes(o.receiveAddress));
    expect(orders).toHaveLength(12);
    const answers = await Promise.all(
      orders.map((o, i) => bot.webhook("orders", delegationEvent(9100 + i, o.orderId, o.receiveAddress))),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    const inThread = () => world.slack.allMessages().filter((m) => m.threadTs === quote.ts && !m.files);
    await eventually(
      () => orders.every((o) => inThread().some((m) => messageText(m).includes(o.orderId))),
      "every delivery named in the thread",
      20_000,
    );
    await quietPeriod(1_500);
    expect(world.slack.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined)).toHaveLength(1);
    expect(inThread().length).toBeLessThan(12);
  }, 60_000);
});
