import { rememberOrigin } from "../../../src/core/origins.js";
import { createBullQueues } from "../../../src/jobs/bull-queue.js";
import { createJobScheduler } from "../../../src/jobs/scheduler.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { startBareNode, startChildBot } from "../support/child-bot.js";
import { sampleRss } from "../support/children.js";
import { sleep } from "../support/net.js";
import type { FigureResult } from "../support/report.js";
import { limitedCalls, startSandbox } from "../support/sandbox.js";
import { createPendingScreenings } from "../support/screenings.js";
import { max, median, ratio, round } from "../support/stats.js";
import type { World } from "../support/world.js";

/**
 * Figure 5: RSS of the built bot in a child process, Slack and Telegram on. Idle: sampled for a
 * few seconds once /healthz is 200 and start-up work has settled. Pending: then 10 000 orders
 * become pending at once — 10 000 screenings pending in the sandbox (for an hour) with a
 * poll-screening job due now for each, and 10 000 recorded origins of energy orders waiting for
 * their webhook — and RSS is sampled for LOADED_MS while the bot polls them at the service's
 * rate. "Flat": the median of the second half of the pending window (set-up over, the bot
 * polling steadily) within FLAT_SHARE of the idle median. The pending peak (the moment 10 000
 * due jobs appear) is reported beside it, without a target of its own.
 */
const PENDING = 10_000;
const SETTLE_MS = 3_000;
const IDLE_MS = 3_000;
const LOADED_MS = 20_000;
const SAMPLE_EVERY_MS = 250;
const SETUP_CONCURRENCY = 32;
const BOT_PREFIX = "opsbot:";
const TARGET_IDLE_MB = 150;
const FLAT_SHARE = 0.1;

/** The bot's side of 10 000 pending orders, written into its Redis as the bot itself would. */
async function makePending(redisUrl: string, screeningIds: readonly string[]): Promise<void> {
  const queues = createBullQueues({ connection: { url: redisUrl }, prefix: `${BOT_PREFIX}jobs` });
  const store = createRedisStore({ url: redisUrl, prefix: BOT_PREFIX });
  const jobs = createJobScheduler(queues);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < screeningIds.length; i = next++) {
      const id = screeningIds[i] ?? "";
      const conversation = { platform: "slack", id: `C5P${i % 100}` } as const;
      await jobs.schedule(
        { kind: "poll-screening", clientOrderId: id, conversation },
        { delayMs: 0, jobId: `poll-screening:${id}` },
      );
      await rememberOrigin(store, "order", `F5ORDER-${i}`, conversation);
    }
  };
  try {
    await Promise.all(Array.from({ length: SETUP_CONCURRENCY }, worker));
  } finally {
    await queues.close();
    await store.close();
  }
}

async function bareRss(world: World): Promise<number | null> {
  const bare = await startBareNode(world, "fig5-bare");
  try {
    await sleep(1_000);
    return max(await sampleRss(bare.child, 1_000, SAMPLE_EVERY_MS));
  } finally {
    await bare.child.stop();
  }
}

export async function memoryFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig5", {
    screening: { demoData: false, durationMs: 3_600_000 },
  });
  try {
    const ids = await createPendingScreenings(sandbox, PENDING);
    const redisUrl = world.redis.db(2);
    const bot = await startChildBot(world, { name: "fig5-memory", redisUrl, serviceUrl: sandbox.url });
    let idle: number[];
    let loaded: number[];
    try {
      await sleep(SETTLE_MS);
      idle = await sampleRss(bot.child, IDLE_MS, SAMPLE_EVERY_MS);
      const setupStart = performance.now();
      const sampling = sampleRss(bot.child, LOADED_MS, SAMPLE_EVERY_MS);
      await makePending(redisUrl, ids);
      const setupS = round((performance.now() - setupStart) / 1000, 1);
      loaded = await sampling;
      const polls = sandbox.calls("screening.read").length;
      const limited = limitedCalls(sandbox);
      const bare = await bareRss(world);
      return report({ idle, loaded, bare, polls, limited, setupS });
    } finally {
      await bot.child.stop();
    }
  } finally {
    await stop();
  }
}

interface Samples {
  idle: number[];
  loaded: number[];
  bare: number | null;
  polls: number;
  /** The calls the sandbox answered 429. */
  limited: ReturnType<typeof limitedCalls>;
  setupS: number | null;
}

function report(s: Samples): FigureResult {
  const idle = round(median(s.idle), 1);
  const steady = round(median(s.loaded.slice(Math.floor(s.loaded.length / 2))), 1);
  const peak = round(max(s.loaded), 1);
  const delta = idle === null || steady === null ? null : round(steady - idle, 1);
  const flat = delta === null || idle === null ? null : delta <= idle * FLAT_SHARE;
  return {
    id: "5",
    title: "memory of the built bot, Slack + Telegram on",
    measures: [
      {
        name: "RSS idle (median)",
        value: idle,
        unit: "MB",
        baseline: { name: "bare node:http server", value: round(s.bare, 1) },
        ratio: ratio(idle, s.bare),
        targets: [{ text: `≤ ${TARGET_IDLE_MB} MB`, met: idle === null ? null : idle <= TARGET_IDLE_MB }],
      },
      {
        name: `RSS, ${PENDING} orders pending (median)`,
        value: steady,
        unit: "MB",
        baseline: { name: "idle", value: idle },
        ratio: ratio(steady, idle),
        targets: [{ text: `flat: within ${FLAT_SHARE * 100}% of idle`, met: flat }],
      },
      { name: "RSS delta pending − idle", value: delta, unit: "MB", targets: [] },
      {
        name: `RSS, ${PENDING} orders pending (peak)`,
        value: peak,
        unit: "MB",
        baseline: { name: "idle", value: idle },
        ratio: ratio(peak, idle),
        targets: [],
      },
    ],
    notes: [
      `idle: ${s.idle.length} samples over ${IDLE_MS / 1000} s, ${SETTLE_MS / 1000} s after /healthz 200 (peak ${round(max(s.idle), 1)} MB); pending: ${s.loaded.length} samples over ${LOADED_MS / 1000} s from the moment the orders start to appear (set-up took ${s.setupS} s), median of the second half reported, peak ${peak} MB`,
      `pending = ${PENDING} poll-screening jobs due at once for screenings pending an hour in the sandbox + ${PENDING} recorded order origins; the bot made ${s.polls} screening reads meanwhile, ${s.limited.length} answered 429${s.limited.length > 0 ? ` (${[...new Set(s.limited.map((l) => l.endpoint))].join(", ")}; the 5 calls before each came ${s.limited.map((l) => l.previousMsAgo.join("/")).join("; ")} ms before it)` : ""}`,
    ],
    details: {
      idleMb: s.idle.map((v) => round(v, 1)),
      pendingMb: s.loaded.map((v) => round(v, 1)),
      bareMb: round(s.bare, 1),
      polls: s.polls,
      limited: s.limited,
    },
  };
}
