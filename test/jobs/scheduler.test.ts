import { afterEach, describe, expect, it, vi } from "vitest";
import { sleep } from "../../src/clock.js";
import type { ConversationRef } from "../../src/core/invocation.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import type { TrackedJob } from "../../src/core/ports.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue } from "../../src/jobs/queue.js";
import {
  createJobScheduler,
  type PollAnswer,
  pollDelayMs,
  startTrackedWorker,
  TRACKED_QUEUE,
  type TrackedContext,
  type TrackedHandlers,
} from "../../src/jobs/scheduler.js";
import { bullDelayedJobs } from "../support/bull-delayed.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const CONV: ConversationRef = { platform: "telegram", id: "42" };
const screening = (id: string): TrackedJob => ({
  kind: "poll-screening",
  clientOrderId: id,
  conversation: CONV,
});

type Run = { job: TrackedJob; ctx: TrackedContext };

/** Handlers for every kind; each run is recorded and answered by `answer`. */
function handlers(
  runs: Run[],
  answer: (job: TrackedJob, ctx: TrackedContext) => Promise<PollAnswer>,
): TrackedHandlers {
  const handle = async (job: TrackedJob, ctx: TrackedContext) => {
    runs.push({ job, ctx });
    return answer(job, ctx);
  };
  return {
    "poll-screening": handle,
    "poll-statement": handle,
    "poll-orchestrator": handle,
    "poll-payout": handle,
    "schedule-run": handle,
    "watch-delivery": handle,
    "recover-intent": handle,
    "reconcile-order5m": handle,
    "reconcile-host-start": handle,
    "alert-escalate": handle,
    "alert-unsnooze": handle,
    "case-sla": handle,
  };
}

const done = { done: true } as const;
const again = (delayMs: number) => ({ again: true, delayMs }) as const;
/** BullMQ stores a parked job's due time and turns it back into a delay a moment later: a few ms short. */
const about = (ms: number) => expect.closeTo(ms, -3);

describe("tracked jobs on BullMQ", () => {
  let redis: TestRedis;
  const open: { close(): Promise<void> }[] = [];

  function instance(): JobQueue {
    const queues = createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix });
    open.push(queues);
    return queues;
  }

  /** The tracked queue's delayed jobs, seen and made due by hand. */
  function trackedDelayed() {
    const delayed = bullDelayedJobs(redis, TRACKED_QUEUE);
    open.push(delayed);
    return delayed;
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
    await redis.cleanup();
  });

  it("polls again twice, then finishes: three runs, attempt counted up", async () => {
    redis = testRedis();
    const queues = instance();
    const delayed = trackedDelayed();
    const runs: Run[] = [];
    await startTrackedWorker(
      queues,
      handlers(runs, async (job) => ((job as { attempt?: number }).attempt! < 2 ? again(60_000) : done)),
      { logger: createMemoryLogger(), concurrency: 2 },
    );
    await createJobScheduler(queues).schedule(screening("c-1"), { delayMs: 0, jobId: "screening:c-1" });

    // Each "again" parks the job for the delay it named; it runs again once that is over.
    for (const polls of [1, 2]) {
      await vi.waitFor(async () => expect(await delayed.delays()).toEqual([about(60_000)]));
      expect(runs).toHaveLength(polls);
      await delayed.promote();
    }
    await vi.waitFor(() => expect(runs).toHaveLength(3));
    expect(runs.map((r) => [(r.job as { attempt?: number }).attempt, r.ctx.polls, r.ctx.jobId])).toEqual([
      [0, 0, "screening:c-1"],
      [1, 1, "screening:c-1"],
      [2, 2, "screening:c-1"],
    ]);
    await sleep(200);
    expect(runs).toHaveLength(3);
    expect(await queues.counts(TRACKED_QUEUE)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it("never runs one job in two workers at once, and schedules a jobId once", async () => {
    redis = testRedis();
    const runs: Run[] = [];
    const running = new Set<string>();
    const overlaps: string[] = [];
    const byWorker = [0, 0];
    const make = (worker: number) =>
      handlers(runs, async (_job, ctx) => {
        byWorker[worker]! += 1;
        if (running.has(ctx.jobId)) overlaps.push(ctx.jobId);
        running.add(ctx.jobId);
        await sleep(40);
        running.delete(ctx.jobId);
        return ctx.polls < 3 ? again(10) : done;
      });
    const a = instance();
    const b = instance();
    await startTrackedWorker(a, make(0), { logger: createMemoryLogger(), concurrency: 1 });
    await startTrackedWorker(b, make(1), { logger: createMemoryLogger(), concurrency: 1 });
    const scheduler = createJobScheduler(a);
    for (let i = 0; i < 4; i += 1) {
      await scheduler.schedule(screening(`c-${i}`), { delayMs: 0, jobId: `screening:c-${i}` });
      await createJobScheduler(b).schedule(screening(`c-${i}`), { delayMs: 0, jobId: `screening:c-${i}` });
    }

    await vi.waitFor(() => expect(runs).toHaveLength(16), { timeout: 5_000 });
    await sleep(150);
    expect(runs).toHaveLength(16);
    expect(overlaps).toEqual([]);
    for (let i = 0; i < 4; i += 1) {
      const polls = runs.filter((r) => r.ctx.jobId === `screening:c-${i}`).map((r) => r.ctx.polls);
      expect(polls).toEqual([0, 1, 2, 3]);
    }
    expect(byWorker[0]).toBeGreaterThan(0);
    expect(byWorker[1]).toBeGreaterThan(0);
  });

  it("keeps a job, and its poll count, across a worker restart", async () => {
    redis = testRedis();
    const first = instance();
    const delayed = trackedDelayed();
    const before: Run[] = [];
    await startTrackedWorker(
      first,
      handlers(before, async () => again(60_000)),
      { logger: createMemoryLogger(), concurrency: 1 },
    );
    const job: TrackedJob = { kind: "poll-statement", orderNo: "R-9", conversation: CONV };
    await createJobScheduler(first).schedule(job, { delayMs: 0, jobId: "statement:R-9" });
    await vi.waitFor(() => expect(before).toHaveLength(1));
    await first.close();
    // Parked in Redis with its poll delay, with no worker left.
    expect(await delayed.delays()).toEqual([about(60_000)]);

    const second = instance();
    const after: Run[] = [];
    await startTrackedWorker(
      second,
      handlers(after, async () => done),
      {
        logger: createMemoryLogger(),
        concurrency: 1,
      },
    );
    await delayed.promote();
    await vi.waitFor(() => expect(after).toHaveLength(1));
    expect(after[0]!.job).toEqual({ ...job, attempt: 1 });
    expect(before).toHaveLength(1);
  });

  it("retries a throwing handler with backoff, a bounded number of times", async () => {
    redis = testRedis();
    const queues = instance();
    const runs: Run[] = [];
    const logger = createMemoryLogger();
    await startTrackedWorker(
      queues,
      handlers(runs, async () => {
        throw new Error("service unavailable");
      }),
      { logger, concurrency: 1 },
    );
    const scheduler = createJobScheduler(queues, { attempts: 3, backoff: { delayMs: 50, maxDelayMs: 100 } });
    const watch: TrackedJob = { kind: "watch-delivery", orderId: "o-1", address: "TXYZ", conversation: CONV };
    await scheduler.schedule(watch, { delayMs: 0, jobId: "watch:o-1" });

    await vi.waitFor(async () => expect((await queues.counts(TRACKED_QUEUE)).failed).toBe(1));
    expect(runs).toHaveLength(3);
    expect(runs[0]!.job).toEqual(watch);
    expect(logger.records.map((r) => [r.level, r.obj.attempt])).toEqual([
      ["warn", 1],
      ["warn", 2],
      ["error", 3],
    ]);
    expect(logger.records[2]!.obj).toMatchObject({ kind: "watch-delivery", jobId: "watch:o-1" });
  });
});

describe("tracked jobs in demo mode", () => {
  it("polls until done on the memory queue", async () => {
    const queues = createMemoryQueues();
    try {
      const runs: Run[] = [];
      await startTrackedWorker(
        queues,
        handlers(runs, async (_job, ctx) => (ctx.polls < 1 ? again(20) : done)),
        {
          logger: createMemoryLogger(),
        },
      );
      const job: TrackedJob = {
        kind: "poll-orchestrator",
        idempotencyKey: "k".repeat(64),
        conversation: CONV,
      };
      await createJobScheduler(queues).schedule(job, { delayMs: 10, jobId: "orch:k" });
      await vi.waitFor(() => expect(runs).toHaveLength(2));
      expect(runs.map((r) => (r.job as { attempt?: number }).attempt)).toEqual([0, 1]);
    } finally {
      await queues.close();
    }
  });
});

describe("pollDelayMs", () => {
  it("ramps 2 s, 3 s, 5 s, 8 s … up to 30 s", () => {
    const delays = Array.from({ length: 9 }, (_, i) => pollDelayMs(i));
    expect(delays).toEqual([2_000, 3_000, 5_000, 8_000, 13_000, 21_000, 30_000, 30_000, 30_000]);
  });

  it("covers a 3-minute screening within the default budget, then gives up", () => {
    let spent = 0;
    let attempt = 0;
    for (let d = pollDelayMs(attempt); d !== null; d = pollDelayMs(++attempt)) spent += d;
    expect(spent).toBeGreaterThan(3 * 60_000);
    expect(spent).toBeLessThanOrEqual(10 * 60_000);
    expect(pollDelayMs(attempt - 1)).toBe(30_000);
  });

  it("takes its own first delay, cap and budget", () => {
    expect([0, 1, 2, 3].map((i) => pollDelayMs(i, { firstMs: 10_000, maxMs: 60_000 }))).toEqual([
      10_000, 15_000, 25_000, 40_000,
    ]);
    expect(pollDelayMs(0, { firstMs: 5_000, totalMs: 4_000 })).toBeNull();
    expect(pollDelayMs(1, { totalMs: 5_000 })).toBe(3_000);
    expect(pollDelayMs(2, { totalMs: 5_000 })).toBeNull();
  });
});
