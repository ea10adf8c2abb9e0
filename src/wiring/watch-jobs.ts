import type { CoreDeps } from "../core/deps.js";
import type { ConversationRef } from "../core/invocation.js";
import { watchSettingsOf } from "../core/watch/index.js";
import { watchTick } from "../core/watch/tick.js";
import type { JobQueue, JobWorker } from "../jobs/queue.js";

/**
 * One watchlist poller across every instance: a job scheduler on the `watch` queue (BullMQ's,
 * shared through Redis; the in-process queue in the demo) adds one tick every OPS_WATCH_INTERVAL_S,
 * and one worker takes it.
 */
const WATCH_QUEUE = "watch";
const SCHEDULER_ID = "watch-poll";

export interface WatchPollerOptions {
  deps: CoreDeps;
  queues: JobQueue;
  /** Where "the re-screening budget is used up" goes (ALERT_SLACK_CHANNEL / ALERT_TELEGRAM_CHAT). */
  alerts: readonly ConversationRef[];
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
