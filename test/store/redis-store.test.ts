import { afterEach, describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { runStoreContract } from "./store-contract.js";

runStoreContract("redis", async () => {
  const redis = testRedis();
  return {
    store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    peer: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    elapse: sleep,
    close: () => redis.cleanup(),
  };
});

describe("redis store", () => {
  let redis: TestRedis;
  afterEach(() => redis.cleanup());

  it("prefixes every key, so two stores on one server do not see each other", async () => {
    redis = testRedis();
    const raw = redis.connect();
    const a = createRedisStore({ redis: raw, prefix: `${redis.prefix}a:` });
    const b = createRedisStore({ redis: raw, prefix: `${redis.prefix}b:` });
    await a.set("k", "from a");
    await b.set("k", "from b");
    await a.setAdd("s", "x");
    expect(await a.get("k")).toBe("from a");
    expect(await b.get("k")).toBe("from b");
    expect(await b.setMembers("s")).toEqual([]);
    expect(await b.take("k")).toBe("from b");
    expect(await a.get("k")).toBe("from a");
    expect(await raw.get(`${redis.prefix}a:k`)).toBe("from a");
    expect((await raw.keys(`${redis.prefix}*`)).sort()).toEqual([`${redis.prefix}a:k`, `${redis.prefix}a:s`]);
  });

  it("stores the TTL in Redis as PX", async () => {
    redis = testRedis();
    const raw = redis.connect();
    const store = createRedisStore({ redis: raw, prefix: redis.prefix });
    await store.set("k", "v", 30_000);
    await store.incrBy("n", 1, 20_000);
    await store.incrBy("n", 1, 90_000);
    const ttl = await raw.pttl(`${redis.prefix}k`);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    expect(await raw.pttl(`${redis.prefix}n`)).toBeLessThanOrEqual(20_000);
  });

  it("leaves a borrowed connection open on close", async () => {
    redis = testRedis();
    const raw = redis.connect();
    const store = createRedisStore({ redis: raw, prefix: redis.prefix });
    await store.close();
    expect(await raw.ping()).toBe("PONG");
  });

  it("quits the connection it opened itself on close", async () => {
    redis = testRedis();
    const store = createRedisStore({ url: redis.url, prefix: redis.prefix });
    await store.set("k", "v");
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
    await expect(store.get("k")).rejects.toThrow();
  });

  it("answers false to ping by its timeout while an unreachable Redis still holds the commands", async () => {
    redis = testRedis();
    const store = createRedisStore({ url: "redis://127.0.0.1:1", prefix: redis.prefix, pingTimeoutMs: 200 });
    // Offline, ioredis queues a command and fails it only after 20 reconnection attempts (seconds).
    let queuedSettled = false;
    void store
      .get("k")
      .catch(() => undefined)
      .finally(() => {
        queuedSettled = true;
      });
    expect(await store.ping()).toBe(false);
    expect(queuedSettled).toBe(false);
    await store.close();
  });
});
