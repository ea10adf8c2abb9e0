import type { Logger } from "../core/index.js";
import type { JobQueue, JobWorker } from "./queue.js";

/**
 * Recurring work shared by every instance (the balance runway check, the daily digest): one job
 * per ticker with a fixed id on the `ticks` queue. A run answers "again after N ms", which parks
 * the same job without completing it, so the id stays taken: every instance adds the ticker at
 * start and only the first add creates it; on Redis it survives restarts. A failed run is logged
 * and the ticker goes on at its next time: one bad read never ends the schedule.
 */
const TICK_QUEUE = "ticks";

export interface Ticker {
  name: string;
  /** Delay of the very first run, when no instance has created the ticker yet. */
  firstDelayMs: number;
  /** Runs once; answers the delay to the next run. */
  run(): Promise<number>;
  /** Delay after a failed run. */
  retryMs: number;
}

const tickJobId = (name: string): string => `tick:${name}`;

export async function startTickers(
  queues: JobQueue,
  tickers: readonly Ticker[],
  options: { logger: Logger },
): Promise<JobWorker> {
  const byName = new Map(tickers.map((t) => [t.name, t]));
  const worker = await queues.process<Record<string, never>>(
    TICK_QUEUE,
    async (job) => {
      const ticker = byName.get(job.name);
      // Switched off in this instance's configuration: the schedule ends with it.
      if (!ticker) return "done";
      try {
        return { laterMs: await ticker.run() };
      } catch (error) {
        options.logger.error(
          { err: error, ticker: ticker.name },
          "scheduled job failed; it runs again later",
        );
        return { laterMs: ticker.retryMs };
      }
    },
    { concurrency: 2 },
  );
  for (const ticker of tickers) {
    await queues.add(
      TICK_QUEUE,
      ticker.name,
      {},
      { jobId: tickJobId(ticker.name), delayMs: ticker.firstDelayMs },
    );
  }
  return worker;
}
