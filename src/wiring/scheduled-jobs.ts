import type { ConversationRef, CoreDeps, ScheduledJob } from "../core/index.js";
import { features } from "../core/index.js";
import type { JobQueue } from "../jobs/queue.js";
import { startTickers } from "../jobs/ticker.js";
import type { Shutdown } from "./shutdown.js";

/**
 * Starts what the feature list schedules (`FeatureDefinition.scheduled`) for the core's settings:
 * the tickers (the runway check, the daily digest) on the shared `ticks` queue, and each `every`
 * job on a queue of its own with one job scheduler (`<name>-poll`), so one run at a time across
 * every instance (BullMQ's, shared through Redis; the in-process queue in the demo).
 */
export async function startScheduledJobs(options: {
  deps: CoreDeps;
  queues: JobQueue;
  alerts: readonly ConversationRef[];
  shutdown: Shutdown;
}): Promise<void> {
  const { deps, queues, alerts, shutdown } = options;
  const jobs: ScheduledJob[] = features.flatMap((feature) =>
    "scheduled" in feature && feature.scheduled ? [...feature.scheduled({ deps, alerts })] : [],
  );
  const tickers = jobs.flatMap((job) => (job.kind === "ticker" ? [job] : []));
  if (tickers.length > 0) {
    const worker = await startTickers(queues, tickers, { logger: deps.logger });
    shutdown.add("workers", "scheduled jobs", () => worker.close());
  }
  for (const job of jobs) {
    if (job.kind !== "every") continue;
    const worker = await queues.process(
      job.name,
      async () => {
        await job.run();
        return "done";
      },
      { concurrency: 1 },
    );
    await queues.repeat(job.name, `${job.name}-poll`, job.everyMs, "tick", {});
    shutdown.add("workers", `scheduled job ${job.name}`, () => worker.close());
  }
}
