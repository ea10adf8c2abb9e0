import { afterEach, describe, expect, it } from "vitest";
import { UNKNOWN_YET_LINE } from "../../src/core/energy/reconcile-order5m.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { type Bot, createWorld, eventually, OPERATOR, type World } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * Money under races and slow answers, through the whole bot (startApp, real Redis and BullMQ,
 * the real Bolt against the fake Slack API, the sandbox over HTTP): two Confirms at the same
 * instant against the daily cap, and an order whose answer arrives after the client's timeout
 * and is then answered "still processing" (409) before the repeat gets the first order (208).
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";
const OUTCOME = /Energy delegated|Energy order \(already placed\)/;

async function quote(world: World, bot: Bot, address: string): Promise<FakeSlackMessage> {
  const before = new Set(world.slack.channelMessages(CHANNEL).map((m) => m.ts));
  expect((await bot.command(`/energy ${address} 65k`)).status).toBe(200);
  const found = await eventually(
    () =>
      world.slack
        .channelMessages(CHANNEL)
        .find((m) => !before.has(m.ts) && buttonLabels(m).some((l) => /^Confirm/.test(l))),
    `the quote for ${address}`,
  );
  return structuredClone(found);
}

const spentSun = async (): Promise<number> => {
  const day = new Date().toISOString().slice(0, 10);
  return Number((await redis.connect().get(`${redis.prefix}spend:slack:${OPERATOR.id}:${day}`)) ?? "0");
};

const current = (world: World, message: FakeSlackMessage): string =>
  messageText(world.slack.channelMessages(CHANNEL).find((m) => m.ts === message.ts));

describe("the daily cap under concurrent Confirms", () => {
  it("two Confirms of one operator at the same instant, one fits the cap: one order, one clear refusal", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      sandbox: { energy: { order5mLatencyMs: 200 } },
      env: { OPS_DAILY_LIMIT_TRX: "5" },
    });
    const bot = await world.start();
    const quotes = [
      await quote(world, bot, tronAddress("cap-race-a")),
      await quote(world, bot, tronAddress("cap-race-b")),
    ];
    const balanceBefore = world.sandbox.account.balanceSun;
    const answers = await Promise.all(quotes.map((q) => bot.click(q, /^Confirm/)));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const texts = await eventually(() => {
      const now = quotes.map((q) => current(world, q));
      return now.every((t) => OUTCOME.test(t) || /Not ordered/.test(t)) && now;
    }, "both quotes answered");
    await bot.app.drain(1_000);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(world.sandbox.energy.orders()).toHaveLength(1);
    expect(texts.filter((t) => OUTCOME.test(t))).toHaveLength(1);
    const refusal = texts.find((t) => /Not ordered/.test(t)) ?? "";
    expect(refusal).toMatch(/daily limit of 5 TRX \(OPS_DAILY_LIMIT_TRX/);
    expect(await spentSun()).toBe(balanceBefore - world.sandbox.account.balanceSun);
  });
});

describe("an answer past the client's timeout, then 409, then 208", () => {
  it("says once that the outcome is not known yet, then reconciles: one order, reported, counted", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      sandbox: { energy: { order5mLatencyMs: 20 } },
    });
    const bot = await world.start();
    const address = tronAddress("late-answer");
    const q = await quote(world, bot, address);
    const balanceBefore = world.sandbox.account.balanceSun;
    // The first send is answered after the client's 10 s; its resends meet "still processing".
    world.sandbox.inject("order5m.create", { kind: "delay", ms: 10_500 });
    const busy = {
      status: 409,
      json: {
        success: false,
        error: "duplicate_request_processing",
        message: "A request with this idempotency key is still being processed",
        retry_after_seconds: 1,
      },
    };
    world.sandbox.inject("order5m.create", { kind: "reply", reply: busy }, 4);
    expect((await bot.click(q, /^Confirm/)).status).toBe(200);
    await eventually(() => current(world, q).includes(UNKNOWN_YET_LINE), "the not-known-yet line", 25_000);
    // The reconciled outcome takes the place of the quote (which said "not known yet").
    await eventually(() => OUTCOME.test(current(world, q)), "the reconciled outcome", 25_000);
    await quietPeriod(2_000);
    const orders = world.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
    expect(orders).toHaveLength(1);
    expect(current(world, q)).toContain(orders[0]!.orderId);
    const calls = world.sandbox.calls("order5m.create");
    expect(new Set(calls.map((c) => c.headers["x-idempotency-key"])).size).toBe(1);
    expect(calls.map((c) => c.status)).toContain(208);
    // One message: the outcome, where the quote and then the not-known-yet line were; the
    // not-known-yet line was said once and is not the last word.
    expect(world.slack.channelMessages(CHANNEL)).toHaveLength(1);
    expect(world.slack.channelMessages(CHANNEL).filter((m) => OUTCOME.test(messageText(m)))).toHaveLength(1);
    expect(
      world.slack.channelMessages(CHANNEL).filter((m) => messageText(m).includes("not known yet")),
    ).toHaveLength(0);
    expect(await spentSun()).toBe(balanceBefore - world.sandbox.account.balanceSun);
  }, 60_000);
});
