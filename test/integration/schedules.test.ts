import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load-config.js";
import { createScheduleRunHandler } from "../../src/core/schedule/occurrences.js";
import { nextOccurrence } from "../../src/core/schedule/recurrence.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { ADMIN, type Bot, createWorld, eventually, TG_CHAT, type World } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * Standing orders through the whole bot (`startApp`) on a real Redis, real Bolt and grammY against
 * the fake chat APIs, the sandbox over HTTP. The occurrence's job is driven directly on each
 * instance at its minute (no real minute is waited); the run goes through the queue (BullMQ) and
 * the durable Confirm path, and its outcome lands in the thread of the confirmed message.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";
/** Six hours from now, so the planned job does not fire by itself during the test. */
const atMin = Math.floor(((Date.now() + 6 * 3_600_000) % 86_400_000) / 60_000);
const AT = `${String(Math.floor(atMin / 60)).padStart(2, "0")}:${String(atMin % 60).padStart(2, "0")}`;
const occurrence = () => nextOccurrence({ atMin, repeat: { kind: "daily" } }, Date.now()) ?? 0;

async function createSlack(world: World, bot: Bot, address: string): Promise<FakeSlackMessage> {
  await bot.command(`/schedule energy ${address} 65k at ${AT}`);
  const quote = structuredClone(
    await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => /Confirm standing order/.test(messageText(m))),
      "the standing order's quote",
    ),
  );
  await bot.click(quote, /^Confirm/);
  await eventually(
    () =>
      world.slack
        .channelMessages(CHANNEL)
        .find((m) => m.ts === quote.ts && /Standing order S1 created/.test(messageText(m))),
    "the created line in place of the quote",
  );
  return quote;
}

/** The occurrence's job, as the queue runs it, on `bot` at its minute plus `lateMs`. */
const drive = (bot: Bot | App, at: number, lateMs = 1_000) =>
  createScheduleRunHandler({ ...("app" in bot ? bot.app : bot).deps, now: () => at + lateMs })({
    kind: "schedule-run",
    scheduleId: "S1",
    occurrence: at,
  });

const runs = (world: World) =>
  world.slack.channelMessages(CHANNEL).filter((m) => /Standing order S1, run of/.test(messageText(m)));

describe("standing orders on Slack, two instances, one Redis", () => {
  it("an occurrence driven on both instances at once orders once and posts once, in the thread", async () => {
    const world = await createWorld({ redis: { url: redis.url, prefix: redis.prefix } });
    const [a, b] = [await world.start(), await world.start()];
    const quote = await createSlack(world, a, tronAddress("schedule-two-instances"));
    const at = occurrence();
    await Promise.all([drive(a, at), drive(b, at)]);
    const outcome = await eventually(() => runs(world)[0], "the run's outcome");
    expect(outcome.threadTs).toBe(quote.ts);
    expect(messageText(outcome)).toMatch(/Energy delegated/);
    await quietPeriod(1_000);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(runs(world)).toHaveLength(1);
  });

  it("a restart between runs keeps the standing order: the new instance lists it and carries out the next run", async () => {
    const world = await createWorld({ redis: { url: redis.url, prefix: redis.prefix } });
    const a = await world.start();
    const quote = await createSlack(world, a, tronAddress("schedule-restart"));
    await a.stop();
    // While no instance is up, the occurrence waits in Redis as a delayed BullMQ job.
    const at = occurrence();
    const jobs = `${redis.prefix}jobs:tracked`;
    const jobId = encodeURIComponent(`schedule-run:S1:${at}`);
    expect(await redis.connect().zscore(`${jobs}:delayed`, jobId)).not.toBeNull();
    const b = await world.start();
    await b.command("/schedule list");
    const listed = await eventually(
      () => world.slack.channelMessages(CHANNEL).find((m) => /Standing orders \(UTC\)/.test(messageText(m))),
      "the list after the restart",
    );
    expect(messageText(listed)).toMatch(
      new RegExp(`S1 · 65,000 energy to T\\w+ · daily at ${AT} UTC · next `),
    );
    await drive(b, at);
    const outcome = await eventually(() => runs(world)[0], "the run's outcome after the restart");
    expect(outcome.threadTs).toBe(quote.ts);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("standing orders on Slack: approval at run time, a blocked address", () => {
  it("a run at or above OPS_APPROVAL_TRX posts Approve/Reject in the thread; another person's Approve orders once", async () => {
    const world = await createWorld({ env: { OPS_APPROVAL_TRX: "1" } });
    const bot = await world.start();
    const quote = await createSlack(world, bot, tronAddress("schedule-approval"));
    await drive(bot, occurrence());
    const request = structuredClone(
      await eventually(
        () => world.slack.channelMessages(CHANNEL).find((m) => /Approval needed/.test(messageText(m))),
        "the approval request",
      ),
    );
    expect(request.threadTs).toBe(quote.ts);
    expect(messageText(request)).toContain("Standing order S1, run of");
    expect(buttonLabels(request)).toEqual(["Approve", "Reject"]);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);
    await bot.click(request, "Approve", { user: ADMIN });
    await eventually(() => world.sandbox.calls("order5m.create").length === 1, "the order after Approve");
    await quietPeriod(500);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a run for an address now on the deny list pauses the standing order, with an alert carrying Ack", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const address = tronAddress("schedule-blocked");
    await createSlack(world, bot, address);
    world.sandbox.screening.addToList("aml_risk", address);
    await drive(bot, occurrence());
    const alert = await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .find((m) => /Standing order S1 \(energy for/.test(messageText(m))),
      "the alert",
    );
    expect(alert.threadTs).toBeUndefined();
    expect(buttonLabels(alert)).toEqual(expect.arrayContaining(["Ack", "Resolve"]));
    expect(world.sandbox.calls("order5m.create")).toEqual([]);
  });
});

describe("energy … cheapest on Slack", () => {
  it("offers Schedule at the cheaper period's start (a one-off standing order), and says so when now is cheapest", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const world = await createWorld({ sandbox: { now: () => Date.parse(`${today}T12:00:00Z`) } });
    const bot = await world.start();
    await bot.command(`/energy ${tronAddress("cheapest-slack")} 65k cheapest`);
    const offer = structuredClone(
      await eventually(
        () =>
          world.slack
            .channelMessages(CHANNEL)
            .find((m) => /Schedule at/.test(JSON.stringify(m.blocks ?? []))),
        "the offer",
      ),
    );
    expect(buttonLabels(offer)).toEqual([
      "Order now 3.12 TRX",
      "Schedule at 00:01 (saves 0.52 TRX)",
      "Cancel",
    ]);
    expect(messageText(offer)).toContain("2.6 TRX (Night 00-06, 40 SUN per energy");
    await bot.click(offer, /^Schedule at/);
    const created = await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .find((m) => m.ts === offer.ts && /Standing order S1 created/.test(messageText(m))),
      "the one-off standing order in place of the offer",
    );
    expect(messageText(created)).toMatch(/once on \d{4}-\d\d-\d\d at 00:01 UTC, max 40 SUN per energy/);
    expect(world.sandbox.calls("order5m.create")).toEqual([]);

    // Another bot (the price list is cached for its period), its service in the night period.
    const night = await createWorld({ sandbox: { now: () => Date.parse(`${today}T02:00:00Z`) } });
    await (await night.start()).command(`/energy ${tronAddress("cheapest-slack-now")} 65k cheapest`);
    const normal = await eventually(
      () => night.slack.channelMessages(CHANNEL).find((m) => /is the cheapest period/.test(messageText(m))),
      "the normal quote",
    );
    expect(buttonLabels(normal)).toEqual(["Confirm 2.6 TRX", "Cancel"]);
  });
});

describe("standing orders on Telegram", () => {
  it("is confirmed with the inline button and its run replies to the confirmed message", async () => {
    const world = await createWorld({ telegram: true, redis: { url: redis.url, prefix: redis.prefix } });
    const bot = await world.start();
    const tg = world.telegram!;
    await bot.say(
      `/schedule energy ${tronAddress("schedule-telegram")} 65k at ${AT} mon,tue,wed,thu,fri,sat,sun`,
    );
    const quote = await eventually(
      () =>
        tg
          .messages(TG_CHAT)
          .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => /Confirm/.test(b.text))),
      "the quote",
    );
    expect(quote.text).toContain(`daily at ${AT} UTC`);
    await bot.tap(quote, /Confirm/);
    await eventually(
      () => tg.messages(TG_CHAT).find((m) => /Standing order S1 created/.test(m.text)),
      "the created line",
    );
    await drive(bot, occurrence());
    const outcome = await eventually(
      () => tg.messages(TG_CHAT).find((m) => /Standing order S1, run of/.test(m.text)),
      "the run's outcome",
    );
    expect(outcome.replyTo).toBe(quote.message_id);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    await bot.say("/schedule energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k at 25:00");
    await eventually(
      () => tg.messages(TG_CHAT).find((m) => /"25:00" is not a time/.test(m.text)),
      "the refusal",
    );
  });
});

describe("standing orders on the console (the demo: no Redis, in-process store and queue)", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it("creates with the numbered Confirm, runs once at its minute, lists, pauses; cheapest answers", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    app = await startApp({
      config: { ...loadConfig({}), port: 0 },
      logger: createLogger({ level: "silent" }),
      stdin,
      stdout,
    });
    const address = tronAddress("schedule-console");
    stdin.write(`schedule energy ${address} 65k at ${AT} max 100\n`);
    await eventually(() => /\[1\] Confirm standing order/.test(printed), "the quote with numbered buttons");
    stdin.write("1\n");
    await eventually(() => printed.includes("Standing order S1 created"), "the created line");
    const at = occurrence();
    const running = app;
    await Promise.all([drive(running, at), drive(running, at)]);
    await eventually(() => printed.includes("Standing order S1, run of"), "the run's outcome");
    await quietPeriod(500);
    expect(printed.match(/Standing order S1, run of/g)).toHaveLength(1);
    expect(app.sandbox?.calls("order5m.create")).toHaveLength(1);
    stdin.write("schedule list\n");
    await eventually(
      () => /S1 · 65,000 energy to T\w+ · daily at \d\d:\d\d UTC, max 100 SUN · next /.test(printed),
      "the list",
    );
    stdin.write("schedule pause S1\n");
    await eventually(() => printed.includes("Standing order S1 paused by"), "the pause");
    stdin.write(`energy ${address} 65k cheapest\n`);
    await eventually(
      () =>
        /Schedule at \d\d:\d\d \(saves [\d.]+ TRX\)|is the cheapest period of the next 24 hours/.test(
          printed,
        ),
      "the cheapest answer",
    );
  });
});
