import { Queue } from "bullmq";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryLogger } from "../../src/core/logger.js";
import { notificationKey } from "../../src/core/service-events/events.js";
import type { NotificationRouter, RouteOutcome } from "../../src/core/service-events/route.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue, JobWorker } from "../../src/jobs/queue.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import {
  addInbound,
  createInbox,
  type InboundBatch,
  type InboundDelivery,
  WEBHOOK_QUEUE,
} from "../../src/webhooks/inbox.js";
import { startInboundWorker } from "../../src/webhooks/worker.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "./bot.js";
import { delegationEvent } from "./signed.js";

/**
 * The inbox stores the deliveries of one turn of the event loop as one BullMQ job; the worker
 * routes each of them, and what cannot be finished now (waiting for its origin, failed for now)
 * continues as a job of its own, so the rest are not routed again. Real Redis and BullMQ.
 */
const redis = testRedis();
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
  await redis.cleanup();
});

function bullQueues(): JobQueue {
  const queues = createBullQueues({ connection: { url: redis.url }, prefix: `${redis.prefix}jobs` });
  open.push(queues);
  return queues;
}

/** The inbox jobs as BullMQ holds them: each job's delivery keys. */
async function storedJobs(): Promise<string[][]> {
  const inbox = new Queue(WEBHOOK_QUEUE, { connection: { url: redis.url }, prefix: `${redis.prefix}jobs` });
  try {
    const jobs = await inbox.getJobs(["waiting", "delayed", "active"]);
    return jobs.map((job) => (job.data as InboundBatch).deliveries.map((d) => d.key)).sort();
  } finally {
    await inbox.close();
  }
}

function delivery(n: number, body: unknown = delegationEvent(n, `ORD${n}`, tronAddress(`b${n}`))) {
  return { source: "orders" as const, key: `orders:${n}`, body, receivedAt: Date.now() };
}

describe("the inbox", () => {
  it("stores the deliveries of one turn as one job, a repeat among them once, and splits past 64", async () => {
    const queues = bullQueues();
    const inbox = createInbox(queues);
    const numbers = Array.from({ length: 70 }, (_, i) => i + 1);
    const stores = numbers.map((n) => inbox.store(delivery(n), 300));
    stores.push(inbox.store(delivery(1), 300));
    await Promise.all(stores);

    const jobs = await storedJobs();
    expect(jobs.map((keys) => keys.length).sort((a, b) => a - b)).toEqual([6, 64]);
    expect(new Set(jobs.flat())).toEqual(new Set(numbers.map((n) => `orders:${n}`)));

    // A later turn: a new job; the same deliveries again add nothing.
    await Promise.all([inbox.store(delivery(71), 300), inbox.store(delivery(72), 300)]);
    await Promise.all([inbox.store(delivery(71), 300), inbox.store(delivery(72), 300)]);
    expect(await storedJobs()).toHaveLength(3);
  });

  it("gathers the deliveries that arrive while a store is under way into the next job", async () => {
    const real = bullQueues();
    // Redis is slow to answer the first store: until `answer()`, every add waits.
    let answer = () => {};
    const slow = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const queues: JobQueue = { ...real, add: (...args) => slow.then(() => real.add(...args)) };
    const inbox = createInbox(queues);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const stores = [inbox.store(delivery(1), 300)];
    await turn();
    // Two more turns' deliveries arrive while the first is being stored.
    for (const n of [2, 3, 4, 5, 6]) stores.push(inbox.store(delivery(n), 300));
    await turn();
    for (const n of [7, 8, 9, 10, 11]) stores.push(inbox.store(delivery(n), 300));
    await turn();
    answer();
    await Promise.all(stores);
    expect((await storedJobs()).map((keys) => keys.length).sort((a, b) => a - b)).toEqual([1, 10]);
  });

  it("keeps one job to about half a megabyte of bodies", async () => {
    const queues = bullQueues();
    const inbox = createInbox(queues);
    await Promise.all([1, 2, 3].map((n) => inbox.store(delivery(n), 200 * 1024)));
    expect((await storedJobs()).map((keys) => keys.length).sort()).toEqual([1, 2]);
  });

  it("tells every sender of the turn when the store failed", async () => {
    const queues = createMemoryQueues();
    await queues.close();
    const inbox = createInbox(queues);
    const results = await Promise.allSettled([1, 2].map((n) => inbox.store(delivery(n), 300)));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});

/** A router that answers what each delivery's script says, in turn, and records every call. */
function scriptedRouter(script: Record<string, (RouteOutcome | Error)[]>) {
  const calls: { key: string; deferrals: number }[] = [];
  const router: NotificationRouter = {
    async route(n, ctx) {
      const key = notificationKey(n);
      calls.push({ key, deferrals: ctx.deferrals });
      const next = script[key]?.shift() ?? "done";
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { router, calls };
}

async function worker(
  queues: JobQueue,
  router: NotificationRouter,
  options: Partial<Parameters<typeof startInboundWorker>[2]> = {},
): Promise<{ worker: JobWorker; logger: ReturnType<typeof createMemoryLogger> }> {
  const logger = createMemoryLogger();
  const started = await startInboundWorker(queues, router, { logger, ...options });
  open.push(started);
  return { worker: started, logger };
}

const asDelivery = (n: number, body?: unknown): InboundDelivery => ({ ...delivery(n, body), deferrals: 0 });

describe("the inbox worker", () => {
  it("routes each delivery of a job; one waiting for its origin or failing goes on alone, the rest are not routed again", async () => {
    const queues = bullQueues();
    const { router, calls } = scriptedRouter({
      "orders:2": [{ laterMs: 20 }, { laterMs: 20 }],
      "orders:3": [new Error("store unavailable")],
    });
    const { logger } = await worker(queues, router);
    await addInbound(queues, [asDelivery(1), asDelivery(2), asDelivery(3), asDelivery(4, { event: 42 })]);

    await vi.waitFor(() => expect(calls.filter((c) => c.key === "orders:2")).toHaveLength(3), {
      timeout: 5_000,
    });
    await vi.waitFor(() => expect(calls.filter((c) => c.key === "orders:3")).toHaveLength(2), {
      timeout: 5_000,
    });
    await quietPeriod();
    expect(calls.filter((c) => c.key === "orders:1")).toEqual([{ key: "orders:1", deferrals: 0 }]);
    expect(calls.filter((c) => c.key === "orders:2").map((c) => c.deferrals)).toEqual([0, 1, 2]);
    expect(calls.filter((c) => c.key === "orders:3").map((c) => c.deferrals)).toEqual([0, 0]);
    // The unreadable one is never routed: one error line, no retry.
    expect(calls.some((c) => c.key === "orders:4")).toBe(false);
    const errors = logger.records.filter((r) => r.level === "error");
    expect(errors.map((r) => r.obj.key)).toEqual(["orders:4"]);
    expect(logger.records.filter((r) => r.level === "warn").map((r) => r.obj.key)).toEqual(["orders:3"]);
    expect(await queues.counts(WEBHOOK_QUEUE)).toMatchObject({
      waiting: 0,
      active: 0,
      delayed: 0,
      failed: 0,
    });
  });

  it("parks the deliveries of a job that wait as long as one new job, not one each", async () => {
    const queues = bullQueues();
    const { router, calls } = scriptedRouter({
      "orders:5": [{ laterMs: 60_000 }],
      "orders:6": [{ laterMs: 60_000 }],
      "orders:7": [{ laterMs: 120_000 }],
    });
    await worker(queues, router);
    await addInbound(
      queues,
      [5, 6, 7, 8].map((n) => asDelivery(n)),
    );
    await vi.waitFor(() => expect(calls).toHaveLength(4), { timeout: 5_000 });
    await vi.waitFor(async () => expect((await queues.counts(WEBHOOK_QUEUE)).delayed).toBe(2), {
      timeout: 5_000,
    });
    expect(await storedJobs()).toEqual([["orders:5", "orders:6"], ["orders:7"]]);
  });

  it("still routes a job stored by the version before batches (one delivery as its data)", async () => {
    const queues = bullQueues();
    const { router, calls } = scriptedRouter({});
    await queues.add(WEBHOOK_QUEUE, "orders", asDelivery(9), { jobId: "inbound:orders:9" });
    await worker(queues, router);
    await vi.waitFor(() => expect(calls).toEqual([{ key: "orders:9", deferrals: 0 }]));
  });

  it("paces routing across jobs: each job waits for the deliveries before it at the set rate", async () => {
    const queues = bullQueues();
    const { router, calls } = scriptedRouter({});
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    await addInbound(
      queues,
      [1, 2, 3, 4, 5].map((n) => asDelivery(n)),
    );
    await addInbound(
      queues,
      [6, 7, 8, 9, 10].map((n) => asDelivery(n)),
    );
    // 10 a second: the first job's five deliveries take half a second of the pace.
    await worker(queues, router, { routesPerSecond: 10, sleep, concurrency: 2 });
    await vi.waitFor(() => expect(calls).toHaveLength(10));
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(400);
    expect(waits[0]).toBeLessThanOrEqual(500);
  });
});
