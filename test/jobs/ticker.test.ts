import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryLogger } from "../../src/core/logger.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue, JobWorker } from "../../src/jobs/queue.js";
import { startTickers, type Ticker } from "../../src/jobs/ticker.js";
import { bullDelayedJobs } from "../support/bull-delayed.js";
import { testRedis } from "../support/redis.js";

/** Recurring jobs: one schedule shared by every instance, going on after a failed run. */
const redis = testRedis();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await redis.cleanup();
});

type Run = { instance: string };

function recorder(runs: Run[], instance: string, intervalMs: number, failFirst = false): Ticker {
  let active = false;
  return {
    name: "check",
    firstDelayMs: 0,
    retryMs: intervalMs,
    async run() {
      if (active) throw new Error("two runs at once");
      active = true;
      runs.push({ instance });
      await new Promise((r) => setTimeout(r, 20));
      active = false;
      if (failFirst && runs.length === 1) throw new Error("first run fails");
      return intervalMs;
    },
  };
}

async function started(queues: JobQueue, ticker: Ticker): Promise<JobWorker> {
  const worker = await startTickers(queues, [ticker], { logger: createMemoryLogger() });
  closers.push(() => worker.close());
  return worker;
}

describe("tickers", () => {
  it("two instances on one Redis run one schedule: each run waits out the interval, none doubled", async () => {
    const INTERVAL_MS = 60_000;
    const delayed = bullDelayedJobs(redis, "ticks");
    closers.push(() => delayed.close());
    const runs: Run[] = [];
    for (const instance of ["a", "b"]) {
      const queues = createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix });
      closers.push(() => queues.close());
      await started(queues, recorder(runs, instance, INTERVAL_MS));
    }
    // After every run, whichever instance took it, one job waits out the interval: one run per interval.
    for (let n = 1; n <= 5; n += 1) {
      // BullMQ stores the due time and turns it back into a delay a moment later: a few ms short.
      await vi.waitFor(async () => expect(await delayed.delays()).toEqual([expect.closeTo(INTERVAL_MS, -3)]));
      expect(runs).toHaveLength(n);
      await delayed.promote();
    }
  });

  it("a failed run is logged and the schedule goes on (in-process queue)", async () => {
    const queues = createMemoryQueues();
    closers.push(() => queues.close());
    const runs: Run[] = [];
    await started(queues, recorder(runs, "solo", 150, true));
    const deadline = Date.now() + 5_000;
    while (runs.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });
});
