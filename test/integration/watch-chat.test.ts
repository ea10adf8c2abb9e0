import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load-config.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { type Bot, createWorld, eventually, OPERATOR, TG_CHAT, type World } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";

/**
 * Watchlists end to end: the whole bot (`startApp`) on Redis, the sandbox over HTTP with its deny
 * list changed at run time, the real Bolt and grammY against the fake Slack and Telegram APIs, and
 * the console demo. The poller runs at the smallest interval the config allows (5 s), so a change
 * is seen within one interval; "never posted" is checked over more than one interval.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";
const INTERVAL_S = "5";
const TICK_MS = 5_000;
let seq = 0;
const fresh = (tag: string) => tronAddress(`watch-it-${tag}-${process.pid}-${seq++}`);
const brokenChecksum = (a: string) => a.slice(0, -1) + (a.endsWith("a") ? "b" : "a");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const slackTexts = (world: World, via: string, pattern: RegExp): FakeSlackMessage[] =>
  world.slack.channelMessages(CHANNEL).filter((m) => m.via === via && pattern.test(messageText(m)));
const replies = (world: World, pattern: RegExp) =>
  world.slack
    .channelMessages(CHANNEL)
    .filter((m) => m.via === "response_url" && pattern.test(messageText(m)));
const tgTexts = (world: World, pattern: RegExp) =>
  (world.telegram?.messages(TG_CHAT) ?? []).filter((m) => pattern.test(m.text));

async function world(env: Record<string, string> = {}): Promise<{ world: World; bot: Bot }> {
  const w = await createWorld({
    telegram: true,
    redis: { url: redis.url, prefix: redis.prefix },
    env: { OPS_WATCH_INTERVAL_S: INTERVAL_S, ...env },
  });
  return { world: w, bot: await w.start() };
}

describe("watch on Slack and Telegram", () => {
  it("adds, lists and removes; refuses bad input; posts a change once and no change never", async () => {
    const { world: w, bot } = await world();
    const published = w.telegram?.calls("setMyCommands")[0]?.params as { commands?: { command: string }[] };
    expect(published.commands?.map((c) => c.command)).toContain("watch");
    const slackAddress = fresh("slack");
    const tgAddress = fresh("tg");

    await bot.command(`/watch add ${slackAddress} payouts wallet`);
    await eventually(() => replies(w, /Watching payouts wallet/).length > 0, "the Slack add reply");
    await bot.command(`/watch add ${brokenChecksum(fresh("bad"))} typo`);
    await bot.command("/watch add 0x52908400098527886E0F7030069857D2E4169EE7");
    const refusals = await eventually(() => {
      const e = w.slack.ephemerals(OPERATOR.id);
      return e.length >= 2 && e;
    }, "the two refusals");
    expect(refusals.map(messageText)).toEqual([
      expect.stringMatching(/not a valid TRON address \(checksum failed/),
      expect.stringMatching(/is not a TRON address \(it does not start with T\)/),
    ]);

    await bot.say(`/watch add ${tgAddress} vendor`);
    await eventually(() => tgTexts(w, /Watching vendor/).length > 0, "the Telegram add reply");
    await bot.say(`/watch add ${brokenChecksum(fresh("bad"))} typo`);
    await eventually(() => tgTexts(w, /checksum failed/).length > 0, "the Telegram refusal");
    await bot.say("/watch list");
    const tgList = await eventually(() => tgTexts(w, /Watched here/)[0], "the Telegram list");
    expect(tgList.text).toContain(tgAddress);
    expect(tgList.text).not.toContain(slackAddress);
    expect(tgList.text).not.toContain("typo");

    // Everyone may list: a user named in no role list.
    await bot.command("/watch list", { user: { id: "U0NOBODY", name: "nobody" } });
    const list = await eventually(() => replies(w, /Watched here: 1 address/)[0], "the Slack list");
    expect(messageText(list)).toMatch(new RegExp(`${slackAddress}.*payouts wallet — clean; by olga since`));

    // No change: a new revision with the same verdicts posts nothing.
    w.sandbox.screening.bumpRevision();
    await sleep(TICK_MS + 1_500);
    expect(slackTexts(w, "chat.postMessage", /Watchlist/)).toEqual([]);
    expect(tgTexts(w, /Watchlist/)).toEqual([]);

    w.sandbox.screening.setCategory(slackAddress, "usdt_frozen");
    w.sandbox.screening.setCategory(tgAddress, "aml_risk", {
      reason_code: "OFAC_SDN",
      label: "OFAC SDN list",
    });
    await eventually(
      () => slackTexts(w, "chat.postMessage", /Watchlist/).length > 0,
      "the Slack alert",
      15_000,
    );
    await eventually(() => tgTexts(w, /Watchlist/).length > 0, "the Telegram alert", 15_000);
    await sleep(TICK_MS + 1_500);
    w.sandbox.screening.bumpRevision();
    await sleep(TICK_MS + 1_500);
    const slackAlerts = slackTexts(w, "chat.postMessage", /Watchlist/).map(messageText);
    expect(slackAlerts).toHaveLength(1);
    expect(slackAlerts[0]).toContain("payouts wallet");
    expect(slackAlerts[0]).toContain("usdt_frozen (was clean)");
    const tgAlerts = tgTexts(w, /Watchlist/).map((m) => m.text);
    expect(tgAlerts).toHaveLength(1);
    expect(tgAlerts[0]).toContain("aml_risk (BLOCK, OFAC_SDN: OFAC SDN list)");

    await bot.command(`/watch remove ${slackAddress}`);
    await eventually(() => replies(w, /Stopped watching payouts wallet/).length > 0, "the remove reply");
    await bot.say(`/watch remove ${tgAddress}`);
    await eventually(() => tgTexts(w, /Stopped watching vendor/).length > 0, "the Telegram remove reply");
    w.sandbox.screening.setCategory(slackAddress, "clean");
    await sleep(TICK_MS + 1_500);
    expect(slackTexts(w, "chat.postMessage", /Watchlist/)).toHaveLength(1);
  }, 60_000);
});

async function hostStarted(w: World, bot: Bot): Promise<string> {
  const address = fresh("host");
  await bot.command(`/host start ${address}`);
  const quote = structuredClone(
    await eventually(
      () => w.slack.channelMessages(CHANNEL).find((m) => buttonLabels(m).includes("Start Host Mode")),
      "the Host Mode quote",
    ),
  );
  await bot.click(quote, "Start Host Mode");
  await eventually(
    () => w.slack.channelMessages(CHANNEL).some((m) => /Host Mode started/.test(messageText(m))),
    "Host Mode started",
  );
  return address;
}

describe("Host Mode guard on Slack", () => {
  it("alerts with a Stop Host Mode button that stops it", async () => {
    const { world: w, bot } = await world();
    const address = await hostStarted(w, bot);
    await sleep(TICK_MS + 1_000);
    w.sandbox.screening.setCategory(address, "usdt_frozen");
    const alert = structuredClone(
      await eventually(
        () =>
          slackTexts(w, "chat.postMessage", /Watchlist/).find((m) =>
            buttonLabels(m).includes("Stop Host Mode"),
          ),
        "the alert with Stop Host Mode",
        15_000,
      ),
    );
    expect(messageText(alert)).toContain("This address is in Host Mode");
    expect(w.sandbox.calls("host.stop")).toEqual([]);
    await bot.click(alert, "Stop Host Mode");
    await eventually(() => w.sandbox.calls("host.stop").length === 1, "the stop call");
    await eventually(
      () =>
        w.slack
          .channelMessages(CHANNEL)
          .some((m) => m.ts === alert.ts && /Host Mode stopped/.test(messageText(m))),
      "the alert replaced by the outcome",
    );
  }, 45_000);

  it("with OPS_HOST_AUTOSTOP=true stops it itself and says so", async () => {
    const { world: w, bot } = await world({ OPS_HOST_AUTOSTOP: "true" });
    const address = await hostStarted(w, bot);
    await sleep(TICK_MS + 1_000);
    w.sandbox.screening.setCategory(address, "smart_contract");
    const alert = await eventually(
      () => slackTexts(w, "chat.postMessage", /Watchlist/)[0],
      "the autostop alert",
      15_000,
    );
    expect(messageText(alert)).toContain("Host Mode was stopped automatically (OPS_HOST_AUTOSTOP)");
    // No Stop Host Mode button: only the alert's own.
    expect(buttonLabels(alert)).toEqual(["Ack", "Snooze 1h", "Resolve"]);
    expect(w.sandbox.calls("host.stop")).toHaveLength(1);
    expect(w.sandbox.calls("host.stop")[0]?.body).toMatchObject({ address });
  }, 45_000);
});

describe("watch on the console", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it("adds, lists, refuses a typo, posts a change once, removes", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    app = await startApp({
      config: { ...loadConfig({ OPS_WATCH_INTERVAL_S: INTERVAL_S }), port: 0 },
      logger: createLogger({ level: "silent" }),
      stdin,
      stdout,
    });
    const address = fresh("console");
    stdin.write(`watch add ${address} cold store\n`);
    await eventually(() => printed.includes("Watching cold store"), "the add reply");
    stdin.write(`watch add ${brokenChecksum(address)}\n`);
    await eventually(() => printed.includes("checksum failed"), "the refusal");
    stdin.write("watch list\n");
    await eventually(() => printed.includes("Watched here: 1 address"), "the list");
    app.sandbox?.screening.setCategory(address, "usdt_frozen");
    await eventually(() => printed.includes("usdt_frozen (was clean)"), "the alert", 15_000);
    await sleep(TICK_MS + 1_000);
    expect(printed.match(/usdt_frozen \(was clean\)/g)).toHaveLength(1);
    stdin.write(`watch remove ${address}\n`);
    await eventually(() => printed.includes("Stopped watching cold store"), "the remove reply");
  }, 40_000);
});
