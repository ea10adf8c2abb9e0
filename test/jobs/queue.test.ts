import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sleep } from "../../src/clock.js";
import { createBullQueues, decodeJobId, encodeJobId } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues, type StartTimer } from "../../src/jobs/memory-queue.js";
import {
  attemptsWithin,
  type JobContext,
  type JobQueue,
  PermanentJobError,
  queueDepths,
  retryDelayMs,
} from "../../src/jobs/queue.js";
import { bullDelayedJobs, type DelayedJobs } from "../support/bull-delayed.js";
import { testRedis } from "../support/redis.js";

interface Env {
  queues: JobQueue;
  /** The delayed jobs of queue "q" (the only one a test delays): the delays asked for, made due by hand. */
  delayed: DelayedJobs;
  cleanup(): Promise<void>;
}

/** Real timers the test also sees: the delay each was started with, and firing them before their time. */
function visibleTimers(): { startTimer: StartTimer; delayed: DelayedJobs } {
  const pending = new Map<() => void, number>();
  const startTimer: StartTimer = (ms, fire) => {
    const stop = () => {
      clearTimeout(timer);
      pending.delete(run);
    };
    const run = () => {
      stop();
      fire();
    };
    const timer = setTimeout(run, ms);
    pending.set(run, ms);
    return stop;
  };
  const delayed: DelayedJobs = {
    delays: async () => [...pending.values()],
    promote: async () => {
      for (const run of [...pending.keys()]) run();
    },
    close: async () => {},
  };
  return { startTimer, delayed };
}

const factories: [string, () => Env][] = [
  [
    "memory",
    () => {
      const { startTimer, delayed } = visibleTimers();
      return { queues: createMemoryQueues({ startTimer }), delayed, cleanup: async () => {} };
    },
  ],
  [
    "bullmq",
    () => {
      const redis = testRedis();
      const delayed = bullDelayedJobs(redis, "q");
      return {
        queues: createBullQueues({ connection: { url: redis.url }, prefix: redis.prefix }),
        delayed,
        cleanup: async () => {
          await delayed.close();
          await redis.cleanup();
        },
      };
    },
  ],
];

const FAST = { delayMs: 100, maxDelayMs: 1_000 };

describe.each(factories)("JobQueue contract (%s)", (_label, make) => {
  let env: Env;
  let queues: JobQueue;
  let delayed: DelayedJobs;
  beforeEach(() => {
    env = make();
    queues = env.queues;
    delayed = env.delayed;
  });
  afterEach(async () => {
    await queues.close();
    await env.cleanup();
  });

  /** Runs `handler` on queue "q" and records every run. */
  async function record<T>(
    handler: (job: JobContext<T>) => Promise<"done" | { laterMs: number; data?: T }>,
    concurrency = 1,
  ) {
    const runs: JobContext<T>[] = [];
    await queues.process<T>(
      "q",
      async (job) => {
        runs.push({ ...job });
        return handler(job);
      },
      { concurrency },
    );
    return runs;
  }

  const idle = async () => {
    const c = await queues.counts("q");
    return c.waiting + c.active + c.delayed;
  };

  it("runs a job once with its name and its data as JSON", async () => {
    const runs = await record<{ a: number; when: string }>(async () => "done");
    await queues.add("q", "hello", { a: 1, when: "now", dropped: undefined });
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    expect(runs[0]).toMatchObject({
      name: "hello",
      data: { a: 1, when: "now" },
      attemptsMade: 0,
      maxAttempts: 1,
    });
    expect(Object.keys(runs[0]!.data)).toEqual(["a", "when"]);
    // Nothing is left in the queue that could run it again.
    await vi.waitFor(async () => expect(await idle()).toBe(0));
    expect(runs).toHaveLength(1);
  });

  it("holds a delayed job until its delay has passed", async () => {
    const runs = await record(async () => "done");
    await queues.add("q", "later", {}, { delayMs: 60_000 });
    expect(await queues.counts("q")).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
    await queues.add("q", "now", {});
    // A job added after it without a delay runs; the delayed one waits its whole delay.
    await vi.waitFor(async () =>
      expect(await queues.counts("q")).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 }),
    );
    expect(runs.map((r) => r.name)).toEqual(["now"]);
    expect(await delayed.delays()).toEqual([60_000]);
    // Its delay is over: now it runs.
    await delayed.promote();
    await vi.waitFor(() => expect(runs.map((r) => r.name)).toEqual(["now", "later"]));
  });

  it("drops a second add with the same jobId while the first is pending", async () => {
    await queues.add("q", "poll", { n: 1 }, { jobId: "poll:order-1", delayMs: 100 });
    await queues.add("q", "poll", { n: 2 }, { jobId: "poll:order-1", delayMs: 100 });
    await queues.add("q", "poll", { n: 3 }, { jobId: "42", delayMs: 100 });
    await queues.add("q", "poll", { n: 4 }, { jobId: "poll:order-2", delayMs: 300 });
    expect((await queues.counts("q")).delayed).toBe(3);
    const runs = await record<{ n: number }>(async () => "done");
    await vi.waitFor(() => expect(runs.map((r) => r.data.n)).toContain(4));
    expect(runs.map((r) => [r.id, r.data.n])).toEqual([
      ["poll:order-1", 1],
      ["42", 3],
      ["poll:order-2", 4],
    ]);
  });

  it("stores each of a burst of adds made at once with its own options; one that cannot be stored fails alone", async () => {
    // All asked for in the same turn, as a burst of webhooks is: the BullMQ queue sends them together.
    const adds = [
      queues.add("q", "a", { n: 1 }, { jobId: "burst:1" }),
      queues.add("q", "a", { n: 2 }, { jobId: "burst:1" }),
      queues.add("q", "b", { n: 3 }, { jobId: "burst:3", delayMs: 10_000 }),
      queues.add("q", "c", { n: 4n }, { jobId: "burst:4" }),
      queues.add("q", "d", { n: 5 }),
    ];
    const settled = await Promise.allSettled(adds);
    expect(settled.map((s) => s.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(await queues.counts("q")).toEqual({ waiting: 2, active: 0, delayed: 1, failed: 0 });
    const runs = await record<{ n: number }>(async () => "done");
    await vi.waitFor(() => expect(runs).toHaveLength(2));
    expect(runs.map((r) => [r.name, r.data.n]).sort()).toEqual([
      ["a", 1],
      ["d", 5],
    ]);
  });
  it("retries a failing job with a growing backoff", async () => {
    const runs = await record(async (job) => {
      if (job.attemptsMade < 2) throw new Error(`boom ${job.attemptsMade}`);
      return "done";
    });
    await queues.add("q", "flaky", {}, { attempts: 3, backoff: { delayMs: 10_000, maxDelayMs: 60_000 } });
    // After each failure the job waits, delayed (not waiting), for the next delay of its backoff.
    for (const [failures, delayMs] of [
      [1, 10_000],
      [2, 20_000],
    ] as const) {
      await vi.waitFor(async () => expect(await delayed.delays()).toEqual([delayMs]));
      expect(await queues.counts("q")).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
      expect(runs).toHaveLength(failures);
      await delayed.promote();
    }
    await vi.waitFor(() => expect(runs).toHaveLength(3));
    expect(runs.map((r) => [r.attemptsMade, r.maxAttempts])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    await vi.waitFor(async () => expect(await idle()).toBe(0));
    expect((await queues.counts("q")).failed).toBe(0);
  });

  it("fails a job after its last attempt and keeps it as failed", async () => {
    const runs = await record(async () => {
      throw new Error("always");
    });
    await queues.add("q", "doomed", {}, { attempts: 2, backoff: { delayMs: 50, maxDelayMs: 50 } });
    await vi.waitFor(async () => expect((await queues.counts("q")).failed).toBe(1));
    expect(runs).toHaveLength(2);
    expect(await idle()).toBe(0);
  });

  it("does not retry a permanent error, nor one that says retryable: false", async () => {
    const runs = await record<{ kind: string }>(async (job) => {
      if (job.data.kind === "ours") throw new PermanentJobError("bad data");
      throw Object.assign(new Error("channel_not_found"), { retryable: false });
    });
    await queues.add("q", "a", { kind: "ours" }, { attempts: 5, backoff: FAST });
    await queues.add("q", "b", { kind: "theirs" }, { attempts: 5, backoff: FAST });
    // Failed is final: neither comes back.
    await vi.waitFor(async () => expect((await queues.counts("q")).failed).toBe(2));
    expect(runs.map((r) => r.data.kind).sort()).toEqual(["ours", "theirs"]);
    expect(await idle()).toBe(0);
  });

  it("waits at least an error's retryAfterMs before the retry", async () => {
    const runs = await record(async (job) => {
      if (job.attemptsMade === 0) throw Object.assign(new Error("429"), { retryAfterMs: 40_000 });
      return "done";
    });
    await queues.add("q", "limited", {}, { attempts: 3, backoff: { delayMs: 20, maxDelayMs: 20 } });
    // The hint, not the 20 ms backoff, is what the retry waits for.
    await vi.waitFor(async () => expect(await delayed.delays()).toEqual([40_000]));
    expect(runs).toHaveLength(1);
    await delayed.promote();
    await vi.waitFor(() => expect(runs).toHaveLength(2));
    expect(runs[1]!.attemptsMade).toBe(1);
  });

  it("parks a job for later with new data, without spending an attempt", async () => {
    const runs = await record<{ n: number }>(async (job) =>
      job.data.n < 2 ? { laterMs: 60_000, data: { n: job.data.n + 1 } } : "done",
    );
    await queues.add("q", "poll", { n: 0 }, { attempts: 1, jobId: "poll-1" });
    for (const parked of [1, 2]) {
      // BullMQ stores the due time and turns it back into a delay a moment later: a few ms short.
      await vi.waitFor(async () => expect(await delayed.delays()).toEqual([expect.closeTo(60_000, -3)]));
      expect(runs).toHaveLength(parked);
      await delayed.promote();
    }
    await vi.waitFor(() => expect(runs).toHaveLength(3));
    expect(runs.map((r) => [r.id, r.data.n, r.attemptsMade])).toEqual([
      ["poll-1", 0, 0],
      ["poll-1", 1, 0],
      ["poll-1", 2, 0],
    ]);
    await vi.waitFor(async () => expect(await idle()).toBe(0));
    expect((await queues.counts("q")).failed).toBe(0);
  });

  it("runs at most `concurrency` jobs at once, and runs them all", async () => {
    let inFlight = 0;
    let peak = 0;
    const runs = await record(async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await sleep(60);
      inFlight -= 1;
      return "done";
    }, 2);
    for (let i = 0; i < 6; i += 1) await queues.add("q", `job-${i}`, {});
    await vi.waitFor(() => expect(runs).toHaveLength(6));
    expect(peak).toBe(2);
    expect(new Set(runs.map((r) => r.name)).size).toBe(6);
  });

  it("counts jobs by state, per queue", async () => {
    await queues.add("q", "now", {});
    await queues.add("q", "later", {}, { delayMs: 10_000 });
    await queues.add("other", "x", {});
    expect(await queues.counts("q")).toEqual({ waiting: 1, active: 0, delayed: 1, failed: 0 });
    expect(await queues.counts("other")).toEqual({ waiting: 1, active: 0, delayed: 0, failed: 0 });
    const depths = await queueDepths(queues);
    expect(depths.notify).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    expect(Object.keys(depths).sort()).toEqual(["notify", "tracked", "webhooks"]);
  });

  it("reserves pace slots gapMs apart per key, and frees a key once its slots have passed", async () => {
    // A minute's gap: the milliseconds the calls themselves take are within closeTo's half second.
    const waits = [await queues.pace("chat-a", 60_000), await queues.pace("chat-a", 60_000)];
    waits.push(await queues.pace("chat-a", 60_000), await queues.pace("chat-b", 60_000));
    expect(waits).toEqual([0, expect.closeTo(60_000, -3), expect.closeTo(120_000, -3), 0]);
    expect(await queues.pace("chat-a", 0)).toEqual(expect.closeTo(180_000, -3));
    // Short slots pass on their own: the key answers 0 again (it would stay taken if they never did).
    await queues.pace("chat-c", 20);
    await queues.pace("chat-c", 20);
    await vi.waitFor(async () => expect(await queues.pace("chat-c", 0)).toBe(0));
  });

  it("a slot asked not before a Retry-After is the key's next, and the later slots come after it", async () => {
    expect(await queues.pace("chat-c", 200)).toBe(0);
    const held = await queues.pace("chat-c", 200, 5_000);
    expect(held).toBeGreaterThan(4_900);
    expect(held).toBeLessThanOrEqual(5_000);
    const after = await queues.pace("chat-c", 200);
    expect(after).toBeGreaterThan(5_100);
    expect(after).toBeLessThanOrEqual(5_200);
  });

  it("close() waits for the job in flight", async () => {
    let finished = false;
    const runs = await record(async () => {
      await sleep(150);
      finished = true;
      return "done";
    });
    await queues.add("q", "slow", {});
    await vi.waitFor(() => expect(runs).toHaveLength(1));
    await queues.close();
    expect(finished).toBe(true);
  });
});

describe("retry arithmetic", () => {
  it("doubles the delay up to the cap and honours retryAfterMs", () => {
    const backoff = { delayMs: 1_000, maxDelayMs: 5_000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(backoff, n, undefined))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
    expect(retryDelayMs(backoff, 1, { retryAfterMs: 3_000 })).toBe(3_000);
    expect(retryDelayMs(backoff, 4, { retryAfterMs: 3_000 })).toBe(5_000);
    expect(retryDelayMs(backoff, 1, { retryAfterMs: "soon" })).toBe(1_000);
  });

  it("counts the attempts that fit a retry window", () => {
    // 1 + 2 + 4 + 5 = 12 s of delays fit 12 s: five runs; 11 s fits only four.
    expect(attemptsWithin(12_000, { delayMs: 1_000, maxDelayMs: 5_000 })).toBe(5);
    expect(attemptsWithin(11_999, { delayMs: 1_000, maxDelayMs: 5_000 })).toBe(4);
  });

  it("encodes job ids BullMQ would refuse, reversibly", () => {
    for (const id of ["a:b", "42", "-7", "#5", "%3A", "x%y:z#", "plain"]) {
      const encoded = encodeJobId(id);
      expect(encoded).not.toContain(":");
      expect(`${Number.parseInt(encoded, 10)}`).not.toBe(encoded);
      expect(decodeJobId(encoded)).toBe(id);
    }
  });
});
