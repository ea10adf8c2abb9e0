import { join } from "node:path";
import { Queue, Worker } from "bullmq";
import { destination } from "pino";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig, secretValues } from "../../../src/config/load-config.js";
import type { Reply } from "../../../src/core/reply.js";
import { createLogger } from "../../../src/log.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { onCleanup } from "../support/cleanup.js";
import type { FigureResult } from "../support/report.js";
import { startSandbox } from "../support/sandbox.js";
import { max, percentile, ratio, round } from "../support/stats.js";
import { botEnv, problemNote, type World } from "../support/world.js";

/**
 * Figure 10: a standing order's run starts within 5 s of its minute. ORDERS standing orders, each
 * for its own address and channel, are created through the core (`schedule energy … at HH:MM`
 * and its Confirm) for the next whole minute at least LEAD_MS away, on one of two bot instances
 * that share one Redis (BullMQ). Nothing drives them: the delayed jobs fire by themselves. Lag =
 * the sandbox's arrival of the run's order5m.create − the minute; also how many orders reached
 * the sandbox (one per standing order, whichever instance ran it). Baseline: a bare BullMQ
 * delayed job due at the same minute on the same Redis, its worker's start − the minute.
 */
const ORDERS = 20;
const LEAD_MS = 15_000;
const WAIT_AFTER_MS = 30_000;
const USER = "U0BENCHS";
const TARGET_S = 5;

async function startInstance(world: World, name: string, serviceUrl: string, redisUrl: string): Promise<App> {
  const base = botEnv(world, { redisUrl, serviceUrl });
  const config = { ...loadConfig({ ...base, OPS_OPERATORS: `slack:${USER}` }), port: 0 };
  const stream = destination({ dest: join(world.logDir, `${name}.log`), sync: false, mkdir: true });
  const logger = createLogger({ level: config.logLevel, destination: stream, secrets: secretValues(config) });
  // Both instances share one prefix: one Redis, one set of queues, as two replicas run.
  const app = await startApp({ config, logger, redisPrefix: "bench:fig10:" });
  onCleanup(`bot ${name}`, async () => {
    await app.stop();
    stream.flushSync();
  });
  return app;
}

const confirmOf = (reply: Reply): string | undefined =>
  reply.blocks
    .flatMap((b) => (b.type === "buttons" ? b.buttons : []))
    .find((b) => b.label.startsWith("Confirm"))?.token;

/** The next whole minute at least LEAD_MS from now. */
function nextMinute(): number {
  const minute = 60_000;
  return Math.ceil((Date.now() + LEAD_MS) / minute) * minute;
}

const hhmm = (at: number): string => new Date(at).toISOString().slice(11, 16);

async function bareDelayedJobLag(redisUrl: string, dueAt: number): Promise<number> {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue("fig10-bare", { connection, prefix: "bench:fig10-bare" });
  let started: number | undefined;
  const worker = new Worker(
    "fig10-bare",
    async () => {
      started = Date.now();
    },
    { connection, prefix: "bench:fig10-bare" },
  );
  try {
    await queue.add("due", {}, { delay: Math.max(0, dueAt - Date.now()), jobId: `due-${dueAt}` });
    while (started === undefined && Date.now() < dueAt + WAIT_AFTER_MS)
      await new Promise((r) => setTimeout(r, 20));
    return started === undefined ? Number.NaN : started - dueAt;
  } finally {
    await worker.close();
    await queue.close();
  }
}

export async function standingOrdersFigure(world: World): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig10");
  const redisUrl = world.redis.db(5);
  try {
    const a = await startInstance(world, "fig10-a", sandbox.url, redisUrl);
    const b = await startInstance(world, "fig10-b", sandbox.url, redisUrl);
    const minute = nextMinute();
    const actor = { platform: "slack", userId: USER } as const;
    const refused: string[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const app = i % 2 === 0 ? a : b;
      const conversation = { platform: "slack", id: `C10S${i}` } as const;
      const text = `schedule energy ${tronAddress(`fig10-${minute}-${i}`)} 65k at ${hhmm(minute)}`;
      const quote = await app.core.handle({ kind: "command", actor, conversation, text });
      const token = confirmOf(quote);
      const created = token ? await app.core.handle({ kind: "action", actor, conversation, token }) : quote;
      if (!/Standing order S\d+ created/.test(created.summary)) refused.push(created.summary);
    }
    sandbox.clearCalls();
    const bare = bareDelayedJobLag(redisUrl, minute);
    const deadline = minute + WAIT_AFTER_MS;
    while (Date.now() < deadline && sandbox.calls("order5m.create").length < ORDERS - refused.length)
      await new Promise((r) => setTimeout(r, 50));
    const lags = sandbox.calls("order5m.create").map((c) => c.at - minute);
    const bareMs = await bare;
    const worst = max(lags);
    const notes = [
      `${ORDERS} standing orders created for ${hhmm(minute)} UTC on two instances sharing one Redis; the delayed jobs fired by themselves.`,
      `order5m.create calls at the sandbox: ${lags.length} (one per standing order expected).`,
      ...(refused.length > 0 ? [`not created: ${refused.length} (first: ${refused[0]})`] : []),
      ...[
        problemNote("fig10-a", join(world.logDir, "fig10-a.log")),
        problemNote("fig10-b", join(world.logDir, "fig10-b.log")),
      ].filter((n): n is string => n !== undefined),
    ];
    const s = (ms: number | null) => (ms === null || Number.isNaN(ms) ? null : round(ms / 1000, 2));
    return {
      id: "11",
      title: "standing order run → its minute",
      measures: [
        {
          name: "run start lag, max (s)",
          value: s(worst),
          unit: "s",
          baseline: { name: "bare BullMQ delayed job lag", value: s(bareMs) },
          ratio: ratio(s(worst), s(bareMs)),
          targets: [
            {
              text: `every run starts within ${TARGET_S} s of its minute`,
              met:
                worst === null ? null : worst <= TARGET_S * 1000 && lags.length === ORDERS - refused.length,
            },
          ],
        },
        { name: "run start lag, p50 (s)", value: s(percentile(lags, 50)), unit: "s", targets: [] },
        {
          name: "orders placed per standing order",
          value: ORDERS - refused.length === 0 ? null : round(lags.length / (ORDERS - refused.length), 2),
          unit: "×",
          targets: [{ text: "exactly one", met: lags.length === ORDERS - refused.length }],
        },
      ],
      notes,
      details: { lagsMs: lags, bareMs, refused: refused.length },
    };
  } finally {
    await stop();
  }
}
