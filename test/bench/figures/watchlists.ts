import { join } from "node:path";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../../src/sandbox/accounts.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { createServiceClient } from "../../../src/service/client.js";
import { START_ARGS } from "../support/build.js";
import { sampleRss, spawnNode } from "../support/children.js";
import { freePort, LOOPBACK, sleep, waitHealthy } from "../support/net.js";
import type { FigureResult } from "../support/report.js";
import { slashCommand } from "../support/requests.js";
import { limitedCalls, startSandbox } from "../support/sandbox.js";
import { max, median, percentile, ratio, round } from "../support/stats.js";
import { botEnv, type World } from "../support/world.js";

/**
 * Figure 9: watchlists at a large exchange's size. The built bot in a child process (Slack +
 * Telegram on, Redis, the sandbox enforcing the service's limits), the poller at
 * OPS_WATCH_INTERVAL_S=5. 100 000 watches are added by signed `/ops watch add` commands, 500
 * addresses each, one per Slack channel (200 channels; measured: first command → last answer,
 * against the same deny-list batch calls made bare); then one address of each channel moves into
 * usdt_frozen at once (a new deny-list revision). Measured: from the change to the last alert at
 * the fake Slack API (the wait for the next tick included) beside the floor of the re-check (its
 * 100 batch calls of 1000 made back to back by the service client alone), the batch calls and
 * 429s meanwhile, whether each change was posted exactly once, and RSS with 100 000 watches (from
 * the change, through the re-check and the alerts, to 5 s after the last; target an absolute
 * ceiling) beside the same bot idle. Then, with the 100 000 watched: one `watch add` of 10 000
 * addresses in a new channel (what a 10 000-row CSV becomes once parsed) against its 10 bare batch
 * calls, and `watch list` of a page in that channel.
 */
const WATCHES = 100_000;
const CHANNELS = 200;
const CHANGED = CHANNELS;
const INTERVAL_S = 5;
const ALERT_TIMEOUT_MS = 120_000;
const IDLE_MS = 3_000;
const AFTER_MS = 5_000;
const SAMPLE_EVERY_MS = 250;
const TARGET_S = 60;
const TARGET_BATCHES = 110;
const TARGET_RSS_MB = 300;
/** One `watch add` of 10 000 (a CSV's worth) with 100 000 watched. */
const LARGE_ADD = 10_000;
const TARGET_LARGE_ADD_S = 5;
const TARGET_LIST_S = 1;

const addressOf = (i: number) => tronAddress(`bench-watch-${i}`);
const channelOf = (i: number) => `C9W${i % CHANNELS}`;
const LARGE_CHANNEL = "C9WLARGE";

const watchUser = "U7BENCH";
const IN_FLIGHT = 10;
const ANSWER_WAIT_MS = 90_000;

/** The address indices watched in channel `c`: every CHANNELS-th, so each channel has WATCHES / CHANNELS. */
const channelAddresses = (c: number) =>
  Array.from({ length: WATCHES / CHANNELS }, (_, k) => addressOf(k * CHANNELS + c));

interface Added {
  /** First command sent → last answer, ms (null: not every command was answered). */
  totalMs: number | null;
  /** Command sent → its answer at the response_url, ms, per command. */
  perCommand: number[];
  answered: number;
}

/**
 * The watches come in as people add them: one signed `/ops watch add <100 addresses>` per channel,
 * IN_FLIGHT commands at a time; each is answered at the fake Slack's response_url.
 */
async function addWatchesByCommand(world: World, origin: string): Promise<Added> {
  const perCommand: number[] = [];
  const t0 = Date.now();
  let last = t0;
  let next = 0;
  const send = async () => {
    for (let c = next++; c < CHANNELS; c = next++) {
      const answered = await command(
        world,
        origin,
        channelOf(c),
        `watch add ${channelAddresses(c).join(" ")}`,
      );
      if (answered === null) continue;
      perCommand.push(answered.ms);
      last = Math.max(last, answered.at);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, send));
  return {
    totalMs: perCommand.length === CHANNELS ? last - t0 : null,
    perCommand,
    answered: perCommand.length,
  };
}

/** One signed `/ops <text>` in `channel`: sent → its answer at the response_url (null: none in time). */
async function command(
  world: World,
  origin: string,
  channel: string,
  text: string,
): Promise<{ ms: number; at: number; text: string } | null> {
  const answers = () =>
    world.slack.allMessages().filter((m) => m.via === "response_url" && m.channel === channel);
  const before = answers().length;
  const request = slashCommand(`/ops ${text}`, {
    channel,
    user: watchUser,
    responseUrl: world.slack.responseUrl({ channel, user: watchUser }),
  });
  const sentAt = Date.now();
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined && { body: request.body }),
  });
  await response.arrayBuffer();
  const deadline = sentAt + ANSWER_WAIT_MS;
  while (answers().length === before && Date.now() < deadline) await sleep(5);
  const answer = answers()[before];
  if (!answer) return null;
  const at = Date.now();
  return { ms: at - sentAt, at, text: `${answer.text}\n${JSON.stringify(answer.blocks ?? [])}` };
}

function alertCount(world: World): number {
  let n = 0;
  for (let c = 0; c < CHANNELS; c += 1) {
    n += world.slack
      .channelMessages(channelOf(c))
      .filter((m) => m.via === "chat.postMessage" && /Watchlist/.test(m.text)).length;
  }
  return n;
}

/** The deny-list floor: `addresses` in batch calls of `size` by the client alone, back to back. */
async function bareBatches(serviceUrl: string, addresses: readonly string[], size: number): Promise<number> {
  const client = createServiceClient({
    baseUrl: serviceUrl,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
  });
  const t0 = performance.now();
  for (let i = 0; i < addresses.length; i += size)
    await client.compliance.batch(addresses.slice(i, i + size));
  return performance.now() - t0;
}

const allAddresses = () => Array.from({ length: WATCHES }, (_, i) => addressOf(i));
const largeAddresses = () =>
  Array.from({ length: LARGE_ADD }, (_, i) => tronAddress(`bench-watch-large-${i}`));

export async function watchlistsFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig9", { screening: { demoData: false } });
  const redisUrl = world.redis.db(4);
  const port = await freePort();
  const origin = `http://${LOOPBACK}:${port}`;
  const child = spawnNode({
    name: "fig9-watch",
    args: START_ARGS,
    cwd: world.repo,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...botEnv(world, { redisUrl, serviceUrl: sandbox.url, port, telegram: true }),
      OPS_WATCH_INTERVAL_S: String(INTERVAL_S),
      OPS_OPERATORS: `slack:${watchUser}`,
    },
    logFile: join(world.logDir, "fig9-watch.log"),
  });
  try {
    await waitHealthy(origin, child.spawnedAt, 20_000, 5);
    await sleep(INTERVAL_S * 1000);
    const idle = await sampleRss(child, IDLE_MS, SAMPLE_EVERY_MS);
    const added = await addWatchesByCommand(world, origin);
    const addBareMs = await bareBatches(sandbox.url, allAddresses(), WATCHES / CHANNELS);
    // The first full re-check after the adds (every verdict known: nothing to post) is not measured.
    await sleep(INTERVAL_S * 1000 + 500);
    await quietBatches(sandbox);
    sandbox.clearCalls();
    const during: number[] = [];
    const t0 = performance.now();
    // One changed address per channel: Slack's ~1/s per-channel pace is not what this measures.
    for (let i = 0; i < CHANGED; i += 1) {
      sandbox.screening.setCategory(addressOf(i * CHANNELS + i), "usdt_frozen");
    }
    let alertedMs: number | null = null;
    while (performance.now() - t0 < ALERT_TIMEOUT_MS) {
      const rss = child.rssMb();
      if (rss !== undefined) during.push(rss);
      if (alertCount(world) >= CHANGED) {
        alertedMs = performance.now() - t0;
        break;
      }
      await sleep(100);
    }
    const after = [...during, ...(await sampleRss(child, AFTER_MS, SAMPLE_EVERY_MS))];
    const batches = sandbox.calls("compliance.batch").length;
    const limited = limitedCalls(sandbox);
    const alerts = alertCount(world);
    const bareMs = await bareBatches(sandbox.url, allAddresses(), 1000);
    const large = await command(world, origin, LARGE_CHANNEL, `watch add ${largeAddresses().join(" ")}`);
    const largeBareMs = await bareBatches(sandbox.url, largeAddresses(), 1000);
    const listed = await command(world, origin, LARGE_CHANNEL, "watch list 250");
    return report({
      added,
      addBareMs,
      idle,
      after,
      alertedMs,
      alerts,
      batches,
      limited: limited.length,
      bareMs,
      large,
      largeBareMs,
      listed,
    });
  } finally {
    await child.stop();
    await stop();
  }
}

/** Waits until no batch call has reached the sandbox for a tick's length (the re-check after the adds is over). */
async function quietBatches(sandbox: Awaited<ReturnType<typeof startSandbox>>["sandbox"]): Promise<void> {
  const deadline = Date.now() + ALERT_TIMEOUT_MS;
  let seen = -1;
  while (Date.now() < deadline) {
    const now = sandbox.calls("compliance.batch").length;
    if (now === seen) return;
    seen = now;
    await sleep(INTERVAL_S * 1000 + 500);
  }
}

type Answer = Awaited<ReturnType<typeof command>>;

interface Samples {
  added: Added;
  addBareMs: number;
  idle: number[];
  after: number[];
  alertedMs: number | null;
  alerts: number;
  batches: number;
  limited: number;
  bareMs: number;
  large: Answer;
  largeBareMs: number;
  listed: Answer;
}

function report(s: Samples): FigureResult {
  const idle = round(median(s.idle), 1);
  const peak = round(max(s.after), 1);
  const seconds = s.alertedMs === null ? null : round(s.alertedMs / 1000, 1);
  const bareS = round(s.bareMs / 1000, 2);
  const addS = s.added.totalMs === null ? null : round(s.added.totalMs / 1000, 1);
  const addBareS = round(s.addBareMs / 1000, 2);
  const largeOk = s.large?.text.includes(`Watching ${LARGE_ADD} addresses`) === true;
  const largeS = s.large === null ? null : round(s.large.ms / 1000, 2);
  const largeBareS = round(s.largeBareMs / 1000, 2);
  const listOk = s.listed !== null && /Page 250 of 500/.test(s.listed.text);
  const listS = s.listed === null ? null : round(s.listed.ms / 1000, 2);
  return {
    id: "9",
    title: `watchlists: ${WATCHES} watched in ${CHANNELS} channels, a revision change`,
    measures: [
      {
        name: `${WATCHES} watches added by ${CHANNELS} \`watch add\` commands`,
        value: addS,
        unit: "s",
        baseline: { name: `${CHANNELS} bare batch calls of ${WATCHES / CHANNELS}`, value: addBareS },
        ratio: ratio(addS, addBareS),
        targets: [{ text: "every one answered", met: s.added.answered === CHANNELS }],
      },
      {
        name: `change → all ${CHANGED} changed alerted`,
        value: seconds,
        unit: "s",
        baseline: { name: `${WATCHES / 1000} bare batch calls of 1000`, value: bareS },
        ratio: ratio(seconds, bareS),
        targets: [{ text: `≤ ${TARGET_S} s`, met: seconds === null ? null : seconds <= TARGET_S }],
      },
      {
        name: "batch calls for the re-check",
        value: s.batches,
        unit: "",
        targets: [{ text: `≤ ${TARGET_BATCHES}`, met: s.batches <= TARGET_BATCHES }],
      },
      {
        name: "alerts posted (each change once)",
        value: s.alerts,
        unit: "",
        targets: [{ text: `= ${CHANGED}`, met: s.alerts === CHANGED }],
      },
      {
        name: "429s from the service",
        value: s.limited,
        unit: "",
        targets: [{ text: "0", met: s.limited === 0 }],
      },
      {
        name: `RSS with ${WATCHES} watches (peak, through the re-check)`,
        value: peak,
        unit: "MB",
        baseline: { name: "idle, no watch", value: idle },
        ratio: ratio(peak, idle),
        targets: [{ text: `< ${TARGET_RSS_MB} MB`, met: peak === null ? null : peak < TARGET_RSS_MB }],
      },
      {
        name: `one \`watch add\` of ${LARGE_ADD} with ${WATCHES} watched`,
        value: largeS,
        unit: "s",
        baseline: { name: `${LARGE_ADD / 1000} bare batch calls of 1000`, value: largeBareS },
        ratio: ratio(largeS, largeBareS),
        targets: [
          {
            text: `≤ ${TARGET_LARGE_ADD_S} s, all ${LARGE_ADD} watched`,
            met: largeOk && largeS !== null && largeS <= TARGET_LARGE_ADD_S,
          },
        ],
      },
      {
        name: `\`watch list\` page 250 of ${LARGE_ADD}`,
        value: listS,
        unit: "s",
        targets: [
          {
            text: `≤ ${TARGET_LIST_S} s, the page shown`,
            met: listOk && listS !== null && listS <= TARGET_LIST_S,
          },
        ],
      },
    ],
    notes: [
      `${CHANNELS} signed \`/ops watch add\` commands of ${WATCHES / CHANNELS} addresses, ${IN_FLIGHT} in flight: ${s.added.answered} answered; command → answer p50/p99 ${round(percentile(s.added.perCommand, 50), 0)}/${round(percentile(s.added.perCommand, 99), 0)} ms`,
      `${WATCHES} watches over ${CHANNELS} Slack channels; ${CHANGED} (one per channel) moved into usdt_frozen at once; poller every ${INTERVAL_S} s (the time includes the wait for the next tick); ${s.alerts} alerts reached the fake Slack API; RSS median ${round(median(s.after), 1)} MB, peak ${peak} MB (idle ${idle} MB)`,
    ],
    details: {
      idleMb: s.idle.map((v) => round(v, 1)),
      afterMb: s.after.map((v) => round(v, 1)),
      bareMs: round(s.bareMs, 0),
    },
  };
}
