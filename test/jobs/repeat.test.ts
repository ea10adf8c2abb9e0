import { afterEach, describe, expect, it, vi } from "vitest";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues, type StartTimer } from "../../src/jobs/memory-queue.js";
import type { JobQueue } from "../../src/jobs/queue.js";
import { bullDelayedJobs, type DelayedJobs } from "../support/bull-delayed.js";
import { testRedis } from "../support/redis.js";

/**
 * `JobQueue.repeat` on both implementations: one schedule per id, however many times (or by
 * however many instances) it is declared; BullMQ's job scheduler shares it through Redis. The
 * interval is an hour and never waited out: the test reads the waits the queue started and ends
 * them by hand, as the hour's end would.
 */
const HOUR_MS = 3_600_000;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

interface Env {
  instances: JobQueue[];
  /** The waits for the schedule's next runs, as started; and ending them now. */
  next: DelayedJobs;
}

function memory(): Env {
  const pending = new Map<() => void, number>();
  const startTimer: StartTimer = (ms, fire) => {
    const run = () => {
      pending.delete(run);
      fire();
    };
    pending.set(run, ms);
    return () => pending.delete(run);
  };
  const queues = createMemoryQueues({ startTimer });
  open.push(() => queues.close());
  const next: DelayedJobs = {
    delays: async () => [...pending.values()],
    promote: async () => {
      for (const run of [...pending.keys()]) run();
    },
    close: async () => {},
  };
  return { instances: [queues, queues], next };
}

function bullmq(): Env {
  const redis = testRedis();
  const two = [0, 1].map(() => createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix }));
  const next = bullDelayedJobs(redis, "r");
  open.push(async () => {
    await Promise.all(two.map((q) => q.close()));
    await next.close();
    await redis.cleanup();
  });
  return { instances: two, next };
}

describe.each([
  ["memory", memory],
  ["bullmq (two instances)", bullmq],
] as const)("JobQueue.repeat (%s)", (_label, make) => {
  it("runs the job at once and then once per interval, however often the schedule is declared", async () => {
    const { instances, next } = make();
    const [a, b] = instances as [JobQueue, JobQueue];
    const runs: string[] = [];
    for (const queues of new Set([a, b])) {
      await queues.process(
        "r",
        async (job) => {
          runs.push(job.name);
          return "done";
        },
        { concurrency: 1 },
      );
    }
    await a.repeat("r", "hourly", HOUR_MS, "tick", {});
    await b.repeat("r", "hourly", HOUR_MS, "tick", {});
    await a.repeat("r", "hourly", HOUR_MS, "tick", {});
    // One schedule: one run now, one wait of an hour for the next (three would be three of each).
    await vi.waitFor(async () => expect(await next.delays()).toEqual([expect.closeTo(HOUR_MS, -4)]));
    await vi.waitFor(() => expect(runs).toEqual(["tick"]));
    for (const hour of [2, 3]) {
      await next.promote();
      await vi.waitFor(() => expect(runs).toHaveLength(hour));
      // Still one wait (BullMQ counts it from the schedule's start, not from the early run).
      await vi.waitFor(async () => expect(await next.delays()).toHaveLength(1));
    }
    expect(runs).toEqual(["tick", "tick", "tick"]);
  });
});
