import { randomBytes } from "node:crypto";
import type { JobQueue, JobWorker } from "../../jobs/queue.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { recheckDenyList } from "./recheck.js";
import { rescreenDue } from "./rescreen.js";
import { watchSettingsOf } from "./settings.js";

/**
 * One poller across every instance: a job scheduler on the `watch` queue (BullMQ's, shared through
 * Redis; the in-process queue in the demo) adds one tick every OPS_WATCH_INTERVAL_S, and one
 * worker takes it. A tick that outlasts the interval keeps the next one out with a lock in the
 * store, so two instances never re-check at once.
 */
export const WATCH_QUEUE = "watch";
const SCHEDULER_ID = "watch-poll";
const TICK_LOCK_KEY = "watch:tick-lock";
/** Far above a tick's length (10 batch calls), so a crashed tick frees the lock soon enough. */
const TICK_LOCK_TTL_MS = 5 * 60_000;

export interface WatchPollerOptions {
  deps: CoreDeps;
  queues: JobQueue;
  /** Where "the re-screening budget is used up" goes (ALERT_SLACK_CHANNEL / ALERT_TELEGRAM_CHAT). */
  alerts: readonly ConversationRef[];
}

/** One tick: the deny-list re-check, then the re-screens that are due. Never throws. */
export async function watchTick(deps: CoreDeps, alerts: readonly ConversationRef[]): Promise<void> {
  const owner = randomBytes(8).toString("hex");
  if (!(await deps.store.setIfNotExists(TICK_LOCK_KEY, owner, TICK_LOCK_TTL_MS))) return;
  try {
    await recheckDenyList(deps).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "watch: deny-list re-check failed; the next tick tries again");
    });
    await rescreenDue(deps, alerts).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "watch: re-screening failed; the next tick tries again");
    });
  } finally {
    if ((await deps.store.get(TICK_LOCK_KEY)) === owner) await deps.store.del(TICK_LOCK_KEY);
  }
}

export async function startWatchPoller(options: WatchPollerOptions): Promise<JobWorker> {
  const { deps, queues, alerts } = options;
  const worker = await queues.process(
    WATCH_QUEUE,
    async () => {
      await watchTick(deps, alerts).catch((error: unknown) => {
        deps.logger.warn({ err: error }, "watch: tick failed");
      });
      return "done";
    },
    { concurrency: 1 },
  );
  await queues.repeat(WATCH_QUEUE, SCHEDULER_ID, watchSettingsOf(deps.settings).intervalMs, "tick", {});
  return worker;
}
