import { afterEach, describe, expect, it } from "vitest";
import { createMemoryLogger } from "../../src/core/logger.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue, JobWorker } from "../../src/jobs/queue.js";
import { startTickers, type Ticker } from "../../src/jobs/ticker.js";
import { testRedis } from "../support/redis.js";

/** Recurring jobs: one schedule shared by every instance, going on after a failed run. */
const redis = testRedis();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await redis.cleanup();
});

const INTERVAL_MS = 150;

function recorder(runs: { at: number; instance: string }[], instance: string, failFirst = false): Ticker {
  let active = false;
  return {
    name: "check",
    firstDelayMs: 0,
    retryMs: INTERVAL_MS,
    async run() {
      if (active) throw new Error("two runs at once");
      active = true;
      runs.push({ at: Date.now(), instance });
      await new Promise((r) => setTimeout(r, 20));
      active = false;
      if (failFirst && runs.length === 1) throw new Error("first run fails");
      return INTERVAL_MS;
    },
  };
}

async function started(queues: JobQueue, ticker: Ticker): Promise<JobWorker> {
  const worker = await startTickers(queues, [ticker], { logger: createMemoryLogger() });
  closers.push(() => worker.close());
  return worker;
}

describe("tickers", () => {
  it("two instances on one Redis run one schedule: runs never closer than the interval", async () => {
    const runs: { at: number; instance: string }[] = [];
    for (const instance of ["a", "b"]) {
      const queues = createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix });
      closers.push(() => queues.close());
      await started(queues, recorder(runs, instance));
    }
    const until = Date.now() + 1_500;
    while (runs.length < 5 && Date.now() < until + 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(runs.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < runs.length; i += 1) {
      expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL_MS - 10);
    }
  });

  it("a failed run is logged and the schedule goes on (in-process queue)", async () => {
    const queues = createMemoryQueues();
    closers.push(() => queues.close());
    const runs: { at: number; instance: string }[] = [];
    await started(queues, recorder(runs, "solo", true));
    const deadline = Date.now() + 5_000;
    while (runs.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });
});
