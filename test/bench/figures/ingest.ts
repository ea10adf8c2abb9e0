import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { type InboundBatch, WEBHOOK_QUEUE } from "../../../src/webhooks/inbox.js";
import { startBareIngest } from "../baselines/bare-ingest.js";
import { startChildBot } from "../support/child-bot.js";
import { runLoad } from "../support/load.js";
import type { MaxResult } from "../support/load-types.js";
import type { FigureResult } from "../support/report.js";
import { BENCH_ORDER_SECRET } from "../support/requests.js";
import { percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 2: signed order webhooks, every one a new delivery_id, with IN_FLIGHT requests
 * outstanding at all times on keep-alive connections (closed loop, from a worker thread), for
 * DURATION_MS; 2xx answers per second over the window after WARMUP_MS. The bot's inbox worker
 * runs meanwhile, as in production (the orders are unknown, so each delivery is parked to wait
 * for its origin: a little Redis work per delivery). Baseline: node:http + HMAC + one SET NX.
 */
const DURATION_MS = 5_000;
const WARMUP_MS = 1_000;
const IN_FLIGHT = 32;
const MAX_REQUESTS = 200_000;
const ROUNDS = 7;
const TARGET_PER_SEC = 3_000;
const TARGET_SHARE = 0.5;

function load(origin: string, firstDeliveryId: number, orderIdPrefix: string): Promise<MaxResult> {
  return runLoad({
    mode: "max",
    origin,
    connections: IN_FLIGHT,
    inFlight: IN_FLIGHT,
    durationMs: DURATION_MS,
    warmupMs: WARMUP_MS,
    maxRequests: MAX_REQUESTS,
    source: {
      kind: "service-webhooks",
      path: "/webhooks/orders",
      secret: BENCH_ORDER_SECRET,
      firstDeliveryId,
      orderIdPrefix,
    },
  });
}

const perSecond = (r: MaxResult) => Math.round(r.okInWindow / (r.windowMs / 1000));

/**
 * How many accepted deliveries the bot kept: the deliveries in inbox jobs not finished (a job holds
 * the deliveries of one burst), plus the ones its worker already routed (each leaves a done mark
 * in the store), each counted once. Each accepted delivery must be one of them.
 */
async function storedDeliveries(redisUrl: string, prefix: string): Promise<number> {
  const inbox = new Queue(WEBHOOK_QUEUE, { connection: { url: redisUrl }, prefix: `${prefix}jobs` });
  const redis = new Redis(redisUrl);
  try {
    const keys = new Set<string>();
    const jobs = await inbox.getJobs(["waiting", "active", "delayed", "failed", "prioritized"]);
    for (const job of jobs) for (const d of (job.data as InboundBatch).deliveries) keys.add(d.key);
    let cursor = "0";
    const done = `${prefix}notification:done:`;
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", `${done}*`, "COUNT", 1000);
      cursor = next;
      for (const key of found) keys.add(key.slice(done.length));
    } while (cursor !== "0");
    return keys.size;
  } finally {
    await inbox.close();
    redis.disconnect();
  }
}

interface Round {
  bare: MaxResult;
  bot: MaxResult;
  /** Accepted by the warm-up load before `bot` (built program only), stored too. */
  warmedUp: number;
  stored: number;
  logFile: string;
}

/** How the bot is run: in this process (the default), or as the built program in a child process. */
export type IngestBuilt = "cold" | "warm" | undefined;

/** One round: the bare server, then a fresh bot (its own prefix, an empty inbox) under the same load. */
async function runRound(world: World, serviceUrl: string, n: number, built: IngestBuilt): Promise<Round> {
  const bareServer = await startBareIngest({ redisUrl: world.redis.url, prefix: `bench:fig2-bare${n}:` });
  const bare = await load(bareServer.origin, 1 + n * 1_000_000, "F2BARE-");
  await bareServer.stop();
  const name = `fig2-ingest-${n}`;
  if (built === undefined) {
    const botServer = await startBot(world, name, serviceUrl);
    const bot = await load(botServer.origin, 10_000_000 + n * 1_000_000, "F2BOT-");
    await botServer.stop();
    const stored = await storedDeliveries(world.redis.url, `bench:${name}:`);
    return { bare, bot, warmedUp: 0, stored, logFile: botServer.logFile };
  }
  // The program's own key prefix, on a Redis database of its own (1–7) so nobody else's keys count.
  const redisUrl = world.redis.db(n + 1);
  const child = await startChildBot(world, { name, redisUrl, serviceUrl });
  const warm = built === "warm" ? await load(child.origin, 20_000_000 + n * 1_000_000, "F2WARM-") : undefined;
  const bot = await load(child.origin, 10_000_000 + n * 1_000_000, "F2BOT-");
  await child.child.stop(10_000);
  const warmedUp = warm ? warm.sent - warm.non2xx - warm.failed : 0;
  const stored = await storedDeliveries(redisUrl, "opsbot:");
  return { bare, bot, warmedUp, stored, logFile: join(world.logDir, `${name}.log`) };
}

/**
 * The round whose bot/bare ratio is the median. Each round runs the bare server and the bot back
 * to back, so a round's ratio compares the two under the same machine conditions, and one
 * disturbed round (a busy machine) does not decide.
 */
function medianRound(rounds: Round[]): Round {
  const share = (r: Round) => perSecond(r.bot) / Math.max(1, perSecond(r.bare));
  const sorted = [...rounds].sort((a, b) => share(a) - share(b));
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error("no rounds");
  return middle;
}

export async function ingestFigure(
  world: World,
  serviceUrl: string,
  built?: IngestBuilt,
): Promise<FigureResult> {
  const rounds: Round[] = [];
  for (let n = 0; n < ROUNDS; n += 1) rounds.push(await runRound(world, serviceUrl, n, built));
  const median = medianRound(rounds);
  const app = median.bot;
  const base = median.bare;
  const sent = rounds.reduce((sum, r) => sum + r.warmedUp + r.bot.sent - r.bot.non2xx - r.bot.failed, 0);
  const stored = rounds.reduce((sum, r) => sum + r.stored, 0);
  const refused = rounds.reduce((sum, r) => sum + r.bot.non2xx + r.bot.failed, 0);

  const botRate = perSecond(app);
  const baseRate = perSecond(base);
  const share = ratio(botRate, baseRate);
  const notes = [
    built === undefined
      ? "the bot in this process (startApp)"
      : `the built program in a child process, a fresh one per round (${built === "warm" ? "after 5 s of uncounted load" : "loaded as soon as /healthz answers"})`,
    `${IN_FLIGHT} requests in flight on ${IN_FLIGHT} keep-alive connections for ${DURATION_MS / 1000} s, first ${WARMUP_MS / 1000} s not counted; every delivery_id new; bot, baseline and load generator (worker thread) share the machine with redis-server`,
    `${ROUNDS} rounds (bare, then a fresh bot), the round with the median ratio reported: bot ${rounds.map((r) => perSecond(r.bot)).join(", ")}/s; bare ${rounds.map((r) => perSecond(r.bare)).join(", ")}/s`,
    `bot, median round: p50/p99 ${round(percentile(app.latencies, 50), 1)}/${round(percentile(app.latencies, 99), 1)} ms; all rounds: ${refused} not accepted, ${stored} deliveries found stored or routed for ${sent} accepted`,
    `bare, median round: p50/p99 ${round(percentile(base.latencies, 50), 1)}/${round(percentile(base.latencies, 99), 1)} ms`,
  ];
  for (const r of rounds) {
    const problems = problemNote("the bot", r.logFile);
    if (problems) notes.push(problems);
  }
  if (app.errors.length + base.errors.length > 0)
    notes.push(`errors: ${[...app.errors, ...base.errors].join("; ")}`);
  return {
    id: "2",
    title: "signed webhook verified, deduplicated and stored",
    measures: [
      {
        name: "webhooks accepted per second",
        value: botRate,
        unit: "/s",
        baseline: { name: "node:http+HMAC+SET NX", value: baseRate },
        ratio: share,
        targets: [
          {
            text: `≥ ${TARGET_PER_SEC}/s`,
            met: botRate >= TARGET_PER_SEC && refused === 0 && stored === sent,
          },
          {
            text: `≥ ${TARGET_SHARE * 100}% of the bare server`,
            met: share === null ? null : share >= TARGET_SHARE,
          },
        ],
      },
    ],
    notes,
    details: {
      rounds: rounds.map((r) => ({
        botPerSecond: perSecond(r.bot),
        barePerSecond: perSecond(r.bare),
        stored: r.stored,
      })),
      bot: { ...app, latencies: undefined, perSecond: botRate },
      bare: { ...base, latencies: undefined, perSecond: baseRate },
    },
  };
}
