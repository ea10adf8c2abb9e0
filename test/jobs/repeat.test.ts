import { afterEach, describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue } from "../../src/jobs/queue.js";
import { testRedis } from "../support/redis.js";

/**
 * `JobQueue.repeat` on both implementations: one schedule per id, however many times (or by
 * however many instances) it is declared; BullMQ's job scheduler shares it through Redis.
 */
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

function memory(): JobQueue[] {
  const queues = createMemoryQueues();
  open.push(() => queues.close());
  return [queues, queues];
}

function bullmq(): JobQueue[] {
  const redis = testRedis();
  const two = [0, 1].map(() => createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix }));
  open.push(async () => {
    await Promise.all(two.map((q) => q.close()));
    await redis.cleanup();
  });
  return two;
}

describe.each([
  ["memory", memory],
  ["bullmq (two instances)", bullmq],
] as const)("JobQueue.repeat (%s)", (_label, make) => {
  it("runs the job every interval, once per interval however often the schedule is declared", async () => {
    const [a, b] = make() as [JobQueue, JobQueue];
    const runs: number[] = [];
    for (const queues of new Set([a, b])) {
      await queues.process(
        "r",
        async (job) => {
          expect(job.name).toBe("tick");
          runs.push(Date.now());
          return "done";
        },
        { concurrency: 1 },
      );
    }
    await a.repeat("r", "every-300", 300, "tick", {});
    await b.repeat("r", "every-300", 300, "tick", {});
    await a.repeat("r", "every-300", 300, "tick", {});
    await sleep(1_650);
    // ~1.65 s / 300 ms: 5 or 6 runs (7 with an immediate first one); two schedules would give ~12.
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.length).toBeLessThanOrEqual(7);
  });
});
