import { afterEach, describe, expect, it } from "vitest";
import { postDailyDigest } from "../../../src/core/digest/schedule.js";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { checkRunway } from "../../../src/core/runway/check.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress } from "../../support/spend-harness.js";
import { CHANNEL, messageText, type SlackHarness, startSlackHarness } from "./harness.js";

/**
 * Runway alerts and the digest on Slack: real Bolt against the fake Web API, the sandbox over
 * HTTP (its balance lowered and raised by the test), a Redis store. The checks are the scheduled
 * jobs' bodies; the posts travel through the notify queue and the adapter to the alert channel.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const ALERTS = "C0ALERTS";
const alerts: ConversationRef[] = [{ platform: "slack", id: ALERTS }];
const SUN = 1_000_000;
const settings = { lowBalanceTrx: "100", alertHours: 12 };

async function setup(): Promise<SlackHarness> {
  return startSlackHarness({ store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }) });
}

/** A balance check as the job runs it, after the balance changed outside the bot. */
async function check(h: SlackHarness) {
  const outcome = await checkRunway(h.deps, { settings, alerts });
  await h.settle();
  return outcome;
}

describe("slack: balance runway alerts", () => {
  it("alerts once when the balance falls below the level, and once when it recovers", async () => {
    const h = await setup();
    expect(await check(h)).toBe("ok");
    expect(h.fake.channelMessages(ALERTS)).toEqual([]);

    h.sandbox.account.balanceSun = 40 * SUN;
    expect(await check(h)).toBe("alerted");
    // The alert (its text and Ack / Snooze / Resolve), then its balance chart as a file beside it:
    // a Slack upload carries no buttons, and chat.update takes no files.
    const [alert, chart] = h.fake.channelMessages(ALERTS);
    expect(messageText(alert)).toContain("Balance running low");
    expect(messageText(alert)).toContain("The balance is 40 TRX, below 100 TRX (OPS_LOW_BALANCE_TRX).");
    expect(messageText(alert)).toContain(h.sandbox.account.depositAddress);
    expect(messageText(alert)).toMatch(/Spend rate/);
    expect(JSON.stringify(alert?.blocks)).toMatch(/"Ack"[\s\S]*"Snooze 1h"[\s\S]*"Resolve"/);
    expect(chart?.files?.map((f) => f.altText)).toEqual([
      "Balance 40 TRX; no spending in the last 24 h, so no projection; alert below 100 TRX or under 12 h left",
    ]);

    expect(await check(h)).toBe("low");
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(2);

    h.sandbox.account.balanceSun = 600 * SUN;
    expect(await check(h)).toBe("recovered");
    // The recovery is posted; no new copy of the alert, no second chart (the edit in place is
    // test/integration/alerts.test.ts's: this harness does not record where alerts were posted).
    const after = h.fake.channelMessages(ALERTS);
    expect(after).toHaveLength(3);
    expect(after.filter((m) => m.files !== undefined)).toHaveLength(1);
    expect(messageText(after[2])).toMatch(/^Balance back above the alert levels: 600 TRX/);
    expect(await check(h)).toBe("ok");
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(3);
  });

  it("`balance` shows the runway", async () => {
    const h = await setup();
    await h.command("/balance");
    await h.settle();
    expect(messageText(h.fake.channelMessages(CHANNEL).at(-1))).toMatch(
      /Runway[\s\S]*no spending in the last 24 h/,
    );
  });
});

describe("slack: daily digest", () => {
  it("`digest` answers in the channel; the scheduled one posts the day to the alert channel once", async () => {
    const h = await setup();
    await h.command(`/energy ${freshAddress("slack-digest")} 65k`);
    await h.settle();
    const quote = structuredClone(h.fake.channelMessages(CHANNEL).at(-1)!);
    await h.click(quote, /^Confirm/);
    await h.command(`/energy ${DEMO_ADDRESSES.sanctioned} 65k`);
    await h.settle();

    await h.command("/digest today");
    await h.settle();
    const digest = messageText(h.fake.channelMessages(CHANNEL).at(-1));
    expect(digest).toContain("Daily digest for");
    expect(digest).toMatch(/slack:U0OPER: [\d.]+ TRX — energy [\d.]+ TRX \(1\)/);
    expect(digest).toMatch(/Energy delegated[\s\S]*65,000 energy/);
    expect(digest).toMatch(/Blocked-address refusals[\s\S]*1: /);
    expect(digest).toMatch(/Saving against burning TRX/);

    // At OPS_DIGEST_AT the job covers the day before: run it as if it were tomorrow at 00:00.
    const tomorrow = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 24 * 3_600_000;
    const deps = { ...h.deps, now: () => tomorrow };
    expect(await postDailyDigest(deps, { atMin: 0, alerts })).toBe("posted");
    expect(await postDailyDigest(deps, { atMin: 0, alerts })).toBe("already");
    await h.settle();
    expect(h.fake.channelMessages(ALERTS)).toHaveLength(1);
    expect(messageText(h.fake.channelMessages(ALERTS)[0])).toMatch(/energy [\d.]+ TRX \(1\)/);
    // One message: the digest's text goes with the 7-day spend chart it carries.
    const [chart] = h.fake.channelMessages(ALERTS)[0]?.files ?? [];
    expect(chart?.filename).toMatch(/^spend-7d-\d{4}-\d\d-\d\d\.png$/);
    expect(chart?.altText).toMatch(/^Spent [\d.]+ TRX over 7 days to .* \(Energy [\d.]+\)/);

    await h.command("/digest someday");
    await h.settle();
    expect(h.fake.ephemerals("U0OPER").map(messageText).at(-1)).toMatch(
      /^"someday" is not a day: use digest/,
    );
  });
});
