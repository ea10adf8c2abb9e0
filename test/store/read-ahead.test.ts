import { afterEach, describe, expect, it } from "vitest";
import { readAhead } from "../../src/store/read-ahead.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import type { Store } from "../../src/store/store.js";
import { type TestRedis, testRedis } from "../support/redis.js";

/** A store on the test Redis whose reads are counted (one per round trip). */
function countedStore(redis: TestRedis) {
  const store = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
  const reads: string[] = [];
  const counted: Store = {
    ...store,
    get: (key) => {
      reads.push(`get ${key}`);
      return store.get(key);
    },
    getMany: (keys) => {
      reads.push(`getMany ${keys.join(",")}`);
      return store.getMany(keys);
    },
  };
  return { store, counted, reads };
}

describe("readAhead", () => {
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    redis = undefined;
  });

  it("answers the first read of each key from one MGET, every later read from the store", async () => {
    redis = testRedis();
    const { store, counted, reads } = countedStore(redis);
    await store.set("a", "1");
    await store.set("b", "2");
    const ahead = readAhead(counted, ["a", "b", "c", "a"]);
    await store.set("a", "changed");

    expect(await ahead.get("c")).toBeNull();
    expect(await ahead.getMany(["a", "b"])).toEqual(["1", "2"]);
    expect(reads).toEqual(["getMany a,b,c"]);
    // Read once: the next read of a key is the store's, as it is now.
    expect(await ahead.get("a")).toBe("changed");
    expect(await ahead.getMany(["b", "d"])).toEqual(["2", null]);
    expect(reads).toEqual(["getMany a,b,c", "get a", "getMany b,d"]);
  });

  it("reads a key again from the store when the batch failed, and leaves no rejection unhandled", async () => {
    redis = testRedis();
    const { store } = countedStore(redis);
    await store.set("a", "1");
    const failing: Store = { ...store, getMany: () => Promise.reject(new Error("connection lost")) };
    const ahead = readAhead(failing, ["a"]);
    expect(await ahead.get("a")).toBe("1");
  });
});
