import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import type { JobQueue } from "../../src/jobs/queue.js";
import { createRateLimiter } from "../../src/service/limiter.js";
import { createRedisConnector, quitRedis, type RedisClient } from "../../src/store/redis-connect.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import { runStoreContract } from "../store/store-contract.js";
import type { HaRedis } from "../support/redis-ha.js";

/**
 * Everything the bot keeps in Redis, on a real Sentinel group or a real Redis Cluster: the store
 * contract, every Lua script of the store and the limiter, BullMQ's queues; then the whole bot.
 * `ha()` is the running topology (started once per file by `useHaRedis`).
 */
export function useHaRedis(start: () => Promise<HaRedis>): () => HaRedis {
  let ha: HaRedis | undefined;
  beforeAll(async () => {
    ha = await start();
  }, 60_000);
  afterAll(async () => {
    await ha?.close();
  }, 30_000);
  return () => {
    if (!ha) throw new Error("the Redis topology did not start");
    return ha;
  };
}

/** A connection factory with a key prefix nobody else uses; `close()` quits what it opened. */
function haConnections(ha: HaRedis) {
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  const connector = createRedisConnector(ha.target, prefix);
  const open: RedisClient[] = [];
  return {
    prefix,
    keys: connector.keys,
    connect(options?: Parameters<typeof connector.connect>[0]) {
      const client = connector.connect(options);
      open.push(client);
      return client;
    },
    close: () => Promise.all(open.splice(0).map(quitRedis)),
  };
}

export function runHaStorage(name: string, ha: () => HaRedis): void {
  runStoreContract(name, async () => {
    const c = haConnections(ha());
    return {
      store: createRedisStore({ redis: c.connect({ autoPipelining: true }), prefix: c.keys.store }),
      peer: createRedisStore({ redis: c.connect(), prefix: c.keys.store }),
      elapse: sleep,
      close: async () => {
        await c.close();
      },
    };
  });

  describe(`rate limiter: ${name}`, () => {
    it("admits a call into several windows at once and refuses the one that does not fit, taking nothing", async () => {
      const c = haConnections(ha());
      let t = Date.now();
      const limiter = createRateLimiter({
        redis: c.connect(),
        keyPrefix: c.keys.limiter,
        now: () => t,
        sleep: async (ms) => {
          t += ms;
        },
      });
      // aml_v1 + aml: four sorted sets in one script (2/s and 30/min, 5/s and 150/min).
      await limiter.acquire(["aml_v1", "aml"], { maxWaitMs: 0 });
      await limiter.acquire(["aml_v1", "aml"], { maxWaitMs: 0 });
      await expect(limiter.acquire(["aml_v1", "aml"], { maxWaitMs: 0 })).rejects.toThrow(
        /no free slot|rate/i,
      );
      // The refused v1 call took no aml point: three plain aml calls still fit this second.
      for (let i = 0; i < 3; i += 1) {
        const slot = await limiter.acquire(["aml"], { maxWaitMs: 0 });
        await slot?.counted();
      }
      await expect(limiter.acquire(["aml"], { maxWaitMs: 0 })).rejects.toThrow();
      t += 1_100;
      await limiter.acquire(["aml_v1", "aml"], { maxWaitMs: 0 });
      await c.close();
    });
  });

  describe(`job queues (BullMQ): ${name}`, () => {
    let queues: JobQueue | undefined;
    let c: ReturnType<typeof haConnections>;
    beforeAll(() => {
      c = haConnections(ha());
      queues = createBullQueues({ connection: (o) => c.connect(o), prefix: c.keys.jobs });
    });
    afterAll(async () => {
      await queues?.close();
      await c.close();
    });

    it("runs each added job once (a repeated job id is one job), paces a key, and counts", async () => {
      const q = queues as JobQueue;
      const seen: string[] = [];
      const worker = await q.process<{ n: number }>(
        "ha-work",
        async (job) => {
          seen.push(`${job.id}:${job.data.n}`);
          return "done";
        },
        { concurrency: 4 },
      );
      await Promise.all([
        q.add("ha-work", "w", { n: 1 }, { jobId: "one" }),
        q.add("ha-work", "w", { n: 1 }, { jobId: "one" }),
        q.add("ha-work", "w", { n: 2 }, { jobId: "two:with:colons" }),
        q.add("ha-work", "w", { n: 3 }, { jobId: "three", delayMs: 200 }),
      ]);
      const deadline = Date.now() + 10_000;
      while (seen.length < 3 && Date.now() < deadline) await sleep(20);
      await sleep(200);
      expect(seen.sort()).toEqual(["one:1", "three:3", "two:with:colons:2"]);
      expect(await q.counts("ha-work")).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
      expect(await q.pace("chan", 1_000)).toBe(0);
      expect(await q.pace("chan", 1_000)).toBeGreaterThan(900);
      await worker.close();
    });
  });

  describe(`replicas' acknowledgement of stored jobs: ${name}`, () => {
    it("answers an add once the master's replica holds it", async () => {
      const c = haConnections(ha());
      let shorts = 0;
      const acked = createBullQueues({
        connection: (o) => c.connect(o),
        prefix: c.keys.jobs,
        replicaAck: { replicas: 1, timeoutMs: 2_000, short: () => shorts++ },
      });
      await acked.add("ha-acked", "w", { n: 1 }, { jobId: "a", replicated: true });
      expect(shorts).toBe(0);
      await acked.close();
      await c.close();
    });
  });
}
