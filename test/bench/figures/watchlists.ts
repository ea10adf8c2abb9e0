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
 * Figure 7: watchlists. The built bot in a child process (Slack + Telegram on, Redis, the sandbox
 * enforcing the service's limits), the poller at OPS_WATCH_INTERVAL_S=5. 10 000 watches are
 * added by signed `/ops watch add` commands, 100 addresses each, one per Slack channel (measured:
 * first command → last answer, against the same deny-list batch calls made bare); then CHANGED of
 * them move into usdt_frozen at once (new deny-list revision). Measured:
 * from the change to the last alert at the fake Slack API (the wait for the next tick included),
 * the batch calls and 429s meanwhile, and RSS with 10 000 watches (from the change, through the
 * re-check and the alerts, to 5 s after the last) against
 * the same bot idle. Baseline of the time: the same 10 batch calls made back to back by the
 * service client alone.
 */
const WATCHES = 10_000;
const CHANNELS = 100;
const CHANGED = 100;
const INTERVAL_S = 5;
const ALERT_TIMEOUT_MS = 60_000;
const IDLE_MS = 3_000;
const AFTER_MS = 5_000;
const SAMPLE_EVERY_MS = 250;
const TARGET_S = 30;
/** Adding them through commands must not take minutes (issue 30). */
const TARGET_ADD_S = 10;
const TARGET_BATCHES = 10;
const TARGET_RSS_MB = 20;

const addressOf = (i: number) => tronAddress(`bench-watch-${i}`);
const channelOf = (i: number) => `C7W${i % CHANNELS}`;

const watchUser = "U7BENCH";
const IN_FLIGHT = 10;
const ANSWER_WAIT_MS = 60_000;

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
      const channel = channelOf(c);
      const answers = () =>
        world.slack.allMessages().filter((m) => m.via === "response_url" && m.channel === channel).length;
      const before = answers();
      const request = slashCommand(`/ops watch add ${channelAddresses(c).join(" ")}`, {
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
      while (answers() === before && Date.now() < deadline) await sleep(5);
      if (answers() === before) continue;
      const answeredAt = Date.now();
      perCommand.push(answeredAt - sentAt);
      last = Math.max(last, answeredAt);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, send));
  return {
    totalMs: perCommand.length === CHANNELS ? last - t0 : null,
    perCommand,
    answered: perCommand.length,
  };
}

function alertCount(world: World): number {
  let n = 0;
  for (let c = 0; c < CHANNELS; c += 1) {
    n += world.slack
      .channelMessages(`C7W${c}`)
      .filter((m) => m.via === "chat.postMessage" && /Watchlist/.test(m.text)).length;
  }
  return n;
}

/** The deny-list floor: `size`-address batch calls over all WATCHES addresses by the client alone, back to back. */
async function bareBatches(serviceUrl: string, size: number): Promise<number> {
  const client = createServiceClient({
    baseUrl: serviceUrl,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
  });
  const addresses = Array.from({ length: WATCHES }, (_, i) => addressOf(i));
  const t0 = performance.now();
  for (let i = 0; i < WATCHES; i += size) await client.compliance.batch(addresses.slice(i, i + size));
  return performance.now() - t0;
}

export async function watchlistsFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig7", { screening: { demoData: false } });
  const redisUrl = world.redis.db(4);
  const port = await freePort();
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
    await waitHealthy(`http://${LOOPBACK}:${port}`, child.spawnedAt, 20_000, 5);
    await sleep(INTERVAL_S * 1000);
    const idle = await sampleRss(child, IDLE_MS, SAMPLE_EVERY_MS);
    const added = await addWatchesByCommand(world, `http://${LOOPBACK}:${port}`);
    const addBareMs = await bareBatches(sandbox.url, WATCHES / CHANNELS);
    await sleep(INTERVAL_S * 1000 + 500);
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
    const batches = sandbox.calls("compliance.batch").length;
    const limited = limitedCalls(sandbox);
    const after = [...during, ...(await sampleRss(child, AFTER_MS, SAMPLE_EVERY_MS))];
    const bareMs = await bareBatches(sandbox.url, 1000);
    return report({
      added,
      addBareMs,
      idle,
      after,
      alertedMs,
      alerts: alertCount(world),
      batches,
      limited: limited.length,
      bareMs,
    });
  } finally {
    await child.stop();
    await stop();
  }
}

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
}

function report(s: Samples): FigureResult {
  const idle = round(median(s.idle), 1);
  const loaded = round(median(s.after), 1);
  const delta = idle === null || loaded === null ? null : round(loaded - idle, 1);
  const seconds = s.alertedMs === null ? null : round(s.alertedMs / 1000, 1);
  const bareS = round(s.bareMs / 1000, 2);
  const addS = s.added.totalMs === null ? null : round(s.added.totalMs / 1000, 1);
  const addBareS = round(s.addBareMs / 1000, 2);
  return {
    id: "9",
    title: `watchlists: ${WATCHES} watched, a revision change`,
    measures: [
      {
        name: `${WATCHES} watches added by ${CHANNELS} \`watch add\` commands`,
        value: addS,
        unit: "s",
        baseline: { name: `${CHANNELS} bare batch calls of ${WATCHES / CHANNELS}`, value: addBareS },
        ratio: ratio(addS, addBareS),
        targets: [
          { text: `≤ ${TARGET_ADD_S} s, every one answered`, met: addS !== null && addS <= TARGET_ADD_S },
        ],
      },
      {
        name: `change → all ${CHANGED} changed alerted`,
        value: seconds,
        unit: "s",
        baseline: { name: "10 bare batch calls", value: bareS },
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
        name: "429s from the service",
        value: s.limited,
        unit: "",
        targets: [{ text: "0", met: s.limited === 0 }],
      },
      {
        name: `RSS with ${WATCHES} watches (median)`,
        value: loaded,
        unit: "MB",
        baseline: { name: "idle, no watch", value: idle },
        ratio: ratio(loaded, idle),
        targets: [
          { text: `≤ idle + ${TARGET_RSS_MB} MB`, met: delta === null ? null : delta <= TARGET_RSS_MB },
        ],
      },
    ],
    notes: [
      `${CHANNELS} signed \`/ops watch add\` commands of ${WATCHES / CHANNELS} addresses, ${IN_FLIGHT} in flight: ${s.added.answered} answered; command → answer p50/p99 ${round(percentile(s.added.perCommand, 50), 0)}/${round(percentile(s.added.perCommand, 99), 0)} ms`,
      `${WATCHES} watches over ${CHANNELS} Slack channels; ${CHANGED} moved into usdt_frozen at once; poller every ${INTERVAL_S} s (the time includes the wait for the next tick); ${s.alerts} alerts reached the fake Slack API; RSS delta ${delta} MB (peak after ${round(max(s.after), 1)} MB)`,
    ],
    details: {
      idleMb: s.idle.map((v) => round(v, 1)),
      afterMb: s.after.map((v) => round(v, 1)),
      bareMs: round(s.bareMs, 0),
    },
  };
}
