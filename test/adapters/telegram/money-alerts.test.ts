import { afterEach, describe, expect, it } from "vitest";
import { postDailyDigest } from "../../../src/core/digest/schedule.js";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { checkRunway } from "../../../src/core/runway/check.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import { GROUP_CHAT, PRIVATE_CHAT, startTelegramHarness, type TelegramHarness } from "./harness.js";

/**
 * Runway alerts and the digest on Telegram: real grammY against the fake Bot API, the sandbox over
 * HTTP (its balance changed by the test), a Redis store; the alert chat is the group.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const alerts: ConversationRef[] = [{ platform: "telegram", id: String(GROUP_CHAT) }];
const SUN = 1_000_000;

async function setup(): Promise<TelegramHarness> {
  return startTelegramHarness({ store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }) });
}

async function check(h: TelegramHarness, settings: { lowBalanceTrx?: string; alertHours?: number }) {
  const outcome = await checkRunway(h.deps, { settings, alerts });
  await h.settle();
  return outcome;
}

const texts = (h: TelegramHarness, chat: number) =>
  h.fake
    .messages(chat)
    .filter((m) => !m.photo)
    .map((m) => m.text);
/** The charts posted as photos: their size and caption. */
const photos = (h: TelegramHarness, chat: number) =>
  h.fake.messages(chat).flatMap((m) => (m.photo ? [[m.photo.width, m.photo.height, m.photo.caption]] : []));

describe("telegram: balance runway alerts", () => {
  it("one alert with the deposit address when the balance falls, one recovery, no repeats", async () => {
    const h = await setup();
    const settings = { lowBalanceTrx: "100.5" };
    expect(await check(h, settings)).toBe("ok");
    h.sandbox.account.balanceSun = 12 * SUN;
    expect(await check(h, settings)).toBe("alerted");
    expect(await check(h, settings)).toBe("low");
    expect(texts(h, GROUP_CHAT)).toHaveLength(1);
    const alert = texts(h, GROUP_CHAT)[0] ?? "";
    expect(alert).toMatch(/^Balance running low\n/);
    expect(alert).toContain("The balance is 12 TRX, below 100.5 TRX (OPS_LOW_BALANCE_TRX).");
    expect(alert).toContain(`Top up: ${h.sandbox.account.depositAddress}`);
    // The balance chart follows the alert as a photo, its summary as the caption.
    expect(photos(h, GROUP_CHAT)).toEqual([
      [1200, 600, "Balance 12 TRX; no spending in the last 24 h, so no projection; alert below 100.5 TRX"],
    ]);

    h.sandbox.account.balanceSun = 300 * SUN;
    expect(await check(h, settings)).toBe("recovered");
    expect(texts(h, GROUP_CHAT)[1]).toMatch(/^Balance back above the alert levels: 300 TRX/);
  });

  it("a runway below OPS_RUNWAY_ALERT_HOURS alerts even with a healthy balance", async () => {
    const h = await setup();
    // The bot spends: one order of about 2.6 TRX in the last 24 h is a rate of about 0.11 TRX/h.
    await h.say(`/energy ${freshAddress("tg-runway")} 65k`, { chat: PRIVATE_CHAT });
    await h.settle();
    await h.click(h.fake.messages(PRIVATE_CHAT).at(-1)!, /^Confirm/);
    await h.settle();
    h.sandbox.account.balanceSun = 20 * SUN;
    expect(await check(h, { alertHours: 1000 })).toBe("alerted");
    expect(texts(h, GROUP_CHAT)[0]).toMatch(
      /lasts about [\d,]+ hours \([\d.]+ days\), below 1,000 hours \(OPS_RUNWAY_ALERT_HOURS\)/,
    );
  });
});

describe("telegram: daily digest", () => {
  it("/digest answers in the chat; the scheduled digest posts once to the alert chat", async () => {
    const h = await setup();
    await h.say(`/energy ${freshAddress("tg-digest")} 65k`, { chat: PRIVATE_CHAT });
    await h.settle();
    await h.click(h.fake.messages(PRIVATE_CHAT).at(-1)!, /^Confirm/);
    await h.settle();
    await h.say(`/energy ${DEMO_ADDRESSES.sanctioned} 65k`, { chat: PRIVATE_CHAT });
    await h.settle();
    await h.say("/digest", { chat: PRIVATE_CHAT });
    await h.settle();
    const digest = texts(h, PRIVATE_CHAT).at(-1) ?? "";
    expect(digest).toMatch(/^Daily digest for \d{4}-\d\d-\d\d \(UTC\)/);
    expect(digest).toMatch(/telegram:7001: [\d.]+ TRX — energy [\d.]+ TRX \(1\)/);
    expect(digest).toContain("Energy delegated: 65,000 energy");
    expect(digest).toMatch(/Blocked-address refusals: 1: /);

    const tomorrow = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 24 * 3_600_000;
    const deps = { ...h.deps, now: () => tomorrow };
    await Promise.all([
      postDailyDigest(deps, { atMin: 0, alerts }),
      postDailyDigest(deps, { atMin: 0, alerts }),
    ]);
    await h.settle();
    expect(texts(h, GROUP_CHAT)).toHaveLength(1);
    expect(texts(h, GROUP_CHAT)[0]).toMatch(/Daily digest for .*\n.*Spends: /);
    // The 7-day spend chart follows the digest as a photo.
    const [chart] = photos(h, GROUP_CHAT);
    expect(chart?.slice(0, 2)).toEqual([1200, 600]);
    expect(chart?.[2]).toMatch(/^Spent [\d.]+ TRX over 7 days to \d{4}-\d\d-\d\d \(Energy [\d.]+\)/);

    await h.say("/digest 1999-01-01", { chat: PRIVATE_CHAT });
    await h.settle();
    expect(texts(h, PRIVATE_CHAT).at(-1)).toMatch(/^1999-01-01 is too long ago: use digest/);
  });
});
