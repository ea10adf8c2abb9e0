import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/memory-store.js";
import { runStoreContract } from "./store-contract.js";

runStoreContract("memory", async () => {
  let t = 1_700_000_000_000;
  const store = createMemoryStore({ now: () => t });
  return {
    store,
    peer: store,
    elapse: async (ms) => {
      t += ms;
    },
    close: () => store.close(),
  };
});

describe("memory store", () => {
  it("expires exactly at the TTL of the injected clock", async () => {
    let t = 0;
    const store = createMemoryStore({ now: () => t });
    await store.set("k", "v", 1_000);
    t = 999;
    expect(await store.get("k")).toBe("v");
    t = 1_000;
    expect(await store.get("k")).toBeNull();
  });

  it("forgets expired keys nobody reads again", async () => {
    let t = 0;
    const store = createMemoryStore({ now: () => t });
    await store.set("old", "v", 10);
    t = 20;
    // Enough writes to trigger a sweep; the expired key must be gone from the map, not just hidden.
    for (let i = 0; i < 1_000; i += 1) await store.set("counter", String(i));
    t = 0;
    expect(await store.get("old")).toBeNull();
  });

  it("answers false to ping and refuses work after close", async () => {
    const store = createMemoryStore();
    await store.set("k", "v");
    await store.close();
    expect(await store.ping()).toBe(false);
    await expect(store.get("k")).rejects.toThrow(/closed/);
  });
});
