import { randomUUID } from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import { inject } from "vitest";

/**
 * Redis for one test (or one file): the private server started by redis-global-setup.ts, and a
 * key prefix nobody else uses, so test files run in parallel on one server without FLUSHALL.
 *
 *   const redis = testRedis();
 *   afterEach(() => redis.cleanup());
 *   const store = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
 *
 * Use `prefix` for every key you create (stores, limiters, BullMQ `prefix`), call `connect()`
 * for each connection you need (they are closed for you) and `cleanup()` once at the end.
 */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` of the private server. */
  url: string;
  /** Unique per call, ends with `:`, contains no glob characters. */
  prefix: string;
  /** A new ioredis connection, quit by `cleanup()`. Options are passed to ioredis as is. */
  connect(options?: RedisOptions): Redis;
  /** Deletes every key under `prefix` (SCAN, never FLUSHALL) and quits the connections. */
  cleanup(): Promise<void>;
}

export function testRedis(): TestRedis {
  const url = inject("redisUrl");
  const prefix = `test:${randomUUID().slice(0, 12)}:`;
  const connections: Redis[] = [];

  return {
    url,
    prefix,
    connect(options) {
      const redis = options === undefined ? new Redis(url) : new Redis(url, options);
      connections.push(redis);
      return redis;
    },
    async cleanup() {
      const admin = new Redis(url);
      try {
        await deleteByPrefix(admin, prefix);
      } finally {
        await admin.quit();
        const open = connections.splice(0).filter((redis) => redis.status !== "end");
        await Promise.all(open.map((redis) => redis.quit().catch(() => redis.disconnect())));
      }
    },
  };
}

async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
}
