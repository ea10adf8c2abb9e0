import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../src/core/audit-log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import { createWorld, eventually, TG_CHAT, type World } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";

/**
 * Watchlists across restarts and instances (the whole bot on one Redis), and the re-screening
 * budget running out. A change is posted exactly once whether the instance that saw the new
 * revision lived to post it or not, and two instances poll as one.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";
const ALERT_CHANNEL = "C0ALERT";
const TICK_MS = 5_000;
let seq = 0;
const fresh = (tag: string) => tronAddress(`watch-inst-${tag}-${process.pid}-${seq++}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const alerts = (w: World, channel = CHANNEL) =>
  w.slack
    .channelMessages(channel)
    .filter((m) => m.via === "chat.postMessage" && /Watchlist/.test(messageText(m)))
    .map(messageText);

/**
 * The watch queue's job schedulers as BullMQ holds them in Redis (each instance upserts its own at
 * start), with `ticks`: how many runs each has produced so far.
 */
async function watchSchedules(): Promise<{ id: string; every?: number | null; ticks: number }[]> {
  const queue = new Queue("watch", { connection: { url: redis.url }, prefix: `${redis.prefix}jobs` });
  try {
    const schedulers = await queue.getJobSchedulers();
    return schedulers.map((s) => ({ id: s.key, every: s.every, ticks: s.iterationCount ?? 0 }));
  } finally {
    await queue.close();
  }
}

async function newWorld(env: Record<string, string> = {}): Promise<World> {
  return createWorld({
    telegram: true,
    redis: { url: redis.url, prefix: redis.prefix },
    env: { OPS_WATCH_INTERVAL_S: "5", ...env },
  });
}

describe("watchlists across restarts and instances", () => {
  it("a restart between the revision change and the alert posts the change once", async () => {
    const w = await newWorld();
    const first = await w.start();
    const address = fresh("restart");
    await first.command(`/watch add ${address} treasury`);
    await eventually(
      () => w.slack.channelMessages(CHANNEL).some((m) => /Watching treasury/.test(messageText(m))),
      "the add reply",
    );
    await sleep(TICK_MS + 1_000);
    w.sandbox.screening.setCategory(address, "usdt_frozen");
    await first.stop();
    const second = await w.start();
    await eventually(() => alerts(w).length > 0, "the alert from the restarted bot", 15_000);
    w.sandbox.screening.bumpRevision();
    await sleep(2 * TICK_MS + 1_000);
    expect(alerts(w)).toHaveLength(1);
    expect(alerts(w)[0]).toContain("treasury");
    expect(alerts(w)[0]).toContain("usdt_frozen (was clean)");
    await second.stop();
  }, 60_000);

  it("two instances poll as one and post a change once", async () => {
    const w = await newWorld();
    const [a, b] = [await w.start(), await w.start()];
    const address = fresh("two");
    await a.command(`/watch add ${address} shared`);
    await eventually(
      () => w.slack.channelMessages(CHANNEL).some((m) => /Watching shared/.test(messageText(m))),
      "the add reply",
    );
    await sleep(TICK_MS);
    const statsBefore = w.sandbox.calls("compliance.stats").length;
    const [before] = await watchSchedules();
    w.sandbox.screening.setCategory(address, "aml_risk");
    await eventually(() => alerts(w).length > 0, "the alert", 15_000);
    w.sandbox.screening.bumpRevision();
    await sleep(2 * TICK_MS + 1_000);
    expect(alerts(w)).toHaveLength(1);
    // One poller: both instances keep the same one schedule, and it reads the stats once a tick
    // (give or take the tick running as the count was taken), not once per instance.
    const after = await watchSchedules();
    expect(after).toEqual([{ id: "watch-poll", every: TICK_MS, ticks: expect.any(Number) }]);
    const ticks = after[0]!.ticks - before!.ticks;
    expect(ticks).toBeGreaterThan(0);
    expect(w.sandbox.calls("compliance.stats").length - statsBefore).toBeLessThanOrEqual(ticks + 1);
    // Each revision seen was re-checked once, by one of them.
    const batches = w.sandbox
      .calls("compliance.batch")
      .filter((c) => JSON.stringify(c.body).includes(address));
    expect(batches.length).toBeLessThanOrEqual(3);
    await Promise.all([a.stop(), b.stop()]);
  }, 60_000);
});

describe("re-screening budget", () => {
  it("screens while the month's budget lasts, then tells each alert channel once and stops", async () => {
    // The sandbox's AML price is a few TRX: one re-screen fits in 5, a second does not.
    const w = await newWorld({
      OPS_WATCH_BUDGET_TRX: "5",
      ALERT_SLACK_CHANNEL: ALERT_CHANNEL,
      ALERT_TELEGRAM_CHAT: String(TG_CHAT),
    });
    const bot = await w.start();
    const [first, second] = [fresh("budget"), fresh("budget")];
    await bot.command(`/watch add ${first} vendor screen daily`);
    await eventually(
      () => w.slack.channelMessages(CHANNEL).some((m) => /AML re-screened daily/.test(messageText(m))),
      "the add reply",
    );
    await bot.say(`/watch add ${second} supplier screen weekly`);
    await eventually(
      () => w.telegram?.messages(TG_CHAT).some((m) => /AML re-screened weekly/.test(m.text)),
      "the Telegram add reply",
    );

    const slackNotice = await eventually(
      () => w.slack.channelMessages(ALERT_CHANNEL).find((m) => /budget is used up/.test(messageText(m))),
      "the budget notice in the alert channel",
      15_000,
    );
    expect(messageText(slackNotice)).toMatch(/of 5 TRX, OPS_WATCH_BUDGET_TRX/);
    await eventually(
      () => w.telegram?.messages(TG_CHAT).some((m) => /budget is used up/.test(m.text)),
      "the budget notice in the Telegram alert chat",
    );
    await sleep(2 * TICK_MS);
    expect(w.sandbox.calls("screening.create")).toHaveLength(1);
    expect(w.sandbox.calls("screening.create")[0]?.body).toMatchObject({ address: first, network: "trx" });
    expect(
      w.slack.channelMessages(ALERT_CHANNEL).filter((m) => /budget is used up/.test(messageText(m))),
    ).toHaveLength(1);
    expect(w.telegram?.messages(TG_CHAT).filter((m) => /budget is used up/.test(m.text))).toHaveLength(1);
    const audit = (await readAudit(bot.app.deps.store, 20)).filter((e) => e.verb === "watch rescreen");
    expect(audit).toHaveLength(1);
    await bot.command("/watch list");
    await eventually(
      () =>
        w.slack
          .channelMessages(CHANNEL)
          .some((m) => /Re-screening budget: [\d.]+ of 5 TRX used this month/.test(messageText(m))),
      "the budget in watch list",
    );
  }, 60_000);
});
