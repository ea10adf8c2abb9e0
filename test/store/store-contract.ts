import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";

/**
 * The one behaviour every `Store` promises, run against the memory and the Redis implementation.
 * A harness gives the store, a second handle on the same data (another connection for Redis) for
 * the races, and a way to let time pass: the memory store moves its clock, Redis really waits.
 */
export interface StoreHarness {
  store: Store;
  /** Another `Store` over the same data, so races cross connections where there are any. */
  peer: Store;
  /** Lets `ms` milliseconds of store time pass. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Long enough for Redis to answer a few round trips before expiry, short enough to wait for. */
const TTL_MS = 100;
const PAST_TTL_MS = TTL_MS + 60;
const RACERS = 100;

export function runStoreContract(name: string, makeHarness: () => Promise<StoreHarness>): void {
  describe(`Store contract: ${name}`, () => {
    let h: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      h = await makeHarness();
      store = h.store;
    });
    afterEach(() => h.close());

    describe("strings", () => {
      it("reads null for a missing key and the last value set otherwise", async () => {
        expect(await store.get("missing")).toBeNull();
        await store.set("k", "one");
        await store.set("k", "two");
        expect(await store.get("k")).toBe("two");
        expect(await h.peer.get("k")).toBe("two");
      });

      it("reads several keys at once, in order, null where there is none (and expired ones too)", async () => {
        await store.set("m:1", "one");
        await store.set("m:3", "three");
        await store.set("m:4", "four", TTL_MS);
        await h.elapse(PAST_TTL_MS);
        expect(await h.peer.getMany(["m:3", "m:2", "m:1", "m:4"])).toEqual(["three", null, "one", null]);
        expect(await store.getMany([])).toEqual([]);
      });

      it("keeps keys apart even when one is a prefix of the other", async () => {
        await store.set("a", "1");
        await store.set("a:b", "2");
        expect(await store.get("a")).toBe("1");
        expect(await store.get("a:b")).toBe("2");
      });

      it("expires a value set with a TTL, and a later set without TTL clears it", async () => {
        await store.set("short", "v", TTL_MS);
        await store.set("cleared", "v", TTL_MS);
        await store.set("cleared", "w");
        expect(await store.get("short")).toBe("v");
        await h.elapse(PAST_TTL_MS);
        expect(await store.get("short")).toBeNull();
        expect(await store.get("cleared")).toBe("w");
      });

      it("refuses a TTL that is not a positive number", async () => {
        await expect(store.set("k", "v", 0)).rejects.toThrow(RangeError);
        await expect(store.set("k", "v", -5)).rejects.toThrow(RangeError);
        await expect(store.setIfNotExists("k", "v", Number.NaN)).rejects.toThrow(RangeError);
        expect(await store.get("k")).toBeNull();
      });

      it("deletes a key, and deleting a missing key is not an error", async () => {
        await store.set("k", "v");
        await store.del("k");
        await store.del("never-there");
        expect(await store.get("k")).toBeNull();
      });
    });

    describe("setManyIfNotExists", () => {
      it("claims each free key once, in order, and expires them like setIfNotExists", async () => {
        expect(await store.setIfNotExists("many:b", "old")).toBe(true);
        expect(await store.setManyIfNotExists(["many:a", "many:b", "many:a", "many:c"], "1", TTL_MS)).toEqual(
          [true, false, false, true],
        );
        expect(await store.getMany(["many:a", "many:b", "many:c"])).toEqual(["1", "old", "1"]);
        expect(await store.setManyIfNotExists([], "1")).toEqual([]);
        await h.elapse(PAST_TTL_MS);
        expect(await store.setManyIfNotExists(["many:a", "many:b"], "2")).toEqual([true, false]);
      });
    });

    describe("setIfNotExists", () => {
      it("creates once and leaves the first value in place", async () => {
        expect(await store.setIfNotExists("lock", "first")).toBe(true);
        expect(await store.setIfNotExists("lock", "second")).toBe(false);
        expect(await store.get("lock")).toBe("first");
      });

      it("can claim the key again after its TTL ran out", async () => {
        expect(await store.setIfNotExists("dedup", "a", TTL_MS)).toBe(true);
        expect(await store.setIfNotExists("dedup", "b", TTL_MS)).toBe(false);
        await h.elapse(PAST_TTL_MS);
        expect(await store.setIfNotExists("dedup", "c")).toBe(true);
        expect(await store.get("dedup")).toBe("c");
      });

      it(`has exactly one winner among ${RACERS} parallel claims`, async () => {
        const claims = Array.from({ length: RACERS }, (_, i) =>
          (i % 2 === 0 ? store : h.peer).setIfNotExists("race", `claimer-${i}`, 60_000),
        );
        const results = await Promise.all(claims);
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(await store.get("race")).toBe(`claimer-${winners[0]}`);
      });
    });

    describe("take", () => {
      it("returns the value once and deletes it", async () => {
        await store.set("token", "payload");
        expect(await store.take("token")).toBe("payload");
        expect(await store.take("token")).toBeNull();
        expect(await store.get("token")).toBeNull();
        expect(await store.take("missing")).toBeNull();
      });

      it("does not return an expired value", async () => {
        await store.set("token", "payload", TTL_MS);
        await h.elapse(PAST_TTL_MS);
        expect(await store.take("token")).toBeNull();
      });

      it(`gives the value to exactly one of ${RACERS} parallel takers`, async () => {
        await store.set("button", "once");
        const takes = Array.from({ length: RACERS }, (_, i) => (i % 2 === 0 ? store : h.peer).take("button"));
        const results = await Promise.all(takes);
        expect(results.filter((r) => r === "once")).toHaveLength(1);
        expect(results.filter((r) => r === null)).toHaveLength(RACERS - 1);
      });
    });

    describe("incrBy", () => {
      it("counts from zero, up and down", async () => {
        expect(await store.incrBy("n", 5)).toBe(5);
        expect(await store.incrBy("n", -2)).toBe(3);
        expect(await store.get("n")).toBe("3");
      });

      it("sets the TTL only when it creates the key", async () => {
        expect(await store.incrBy("daily", 1, TTL_MS)).toBe(1);
        await h.elapse(TTL_MS / 4);
        // A later TTL must not extend the window: the counter still dies at the first expiry.
        expect(await store.incrBy("daily", 1, 60_000)).toBe(2);
        await h.elapse(PAST_TTL_MS);
        expect(await store.get("daily")).toBeNull();
        expect(await store.incrBy("daily", 1, 60_000)).toBe(1);
      });

      it("keeps no TTL when created without one", async () => {
        await store.incrBy("forever", 1);
        await h.elapse(PAST_TTL_MS);
        expect(await store.get("forever")).toBe("1");
      });

      it(`loses no increment among ${RACERS} parallel ones`, async () => {
        const incs = Array.from({ length: RACERS }, (_, i) =>
          (i % 2 === 0 ? store : h.peer).incrBy("hits", 1, 60_000),
        );
        const results = await Promise.all(incs);
        expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: RACERS }, (_, i) => i + 1));
        expect(await store.get("hits")).toBe(String(RACERS));
      });

      it("refuses a fractional increment and a value that is not an integer", async () => {
        await expect(store.incrBy("n", 1.5)).rejects.toThrow(RangeError);
        await store.set("text", "abc");
        await expect(store.incrBy("text", 1)).rejects.toThrow(/not an integer/);
        expect(await store.get("text")).toBe("abc");
      });
    });

    describe("reserveWithin", () => {
      it("adds while the total stays within the limit and refuses what would pass it", async () => {
        expect(await store.reserveWithin("cap", 3, 5, 60_000)).toEqual({ ok: true, total: 3 });
        expect(await store.reserveWithin("cap", 3, 5, 60_000)).toEqual({ ok: false, total: 3 });
        expect(await store.reserveWithin("cap", 2, 5, 60_000)).toEqual({ ok: true, total: 5 });
        expect(await store.get("cap")).toBe("5");
        // A release (negative incrBy) makes room again.
        await store.incrBy("cap", -3);
        expect(await store.reserveWithin("cap", 3, 5)).toEqual({ ok: true, total: 5 });
      });

      it("sets the TTL only when it creates the key", async () => {
        await store.reserveWithin("day", 1, 10, TTL_MS);
        await store.reserveWithin("day", 1, 10, 60_000);
        await h.elapse(PAST_TTL_MS);
        expect(await store.get("day")).toBeNull();
      });

      it(`lets exactly as many of ${RACERS} parallel reservations pass as the limit holds`, async () => {
        const tries = Array.from({ length: RACERS }, (_, i) =>
          (i % 2 === 0 ? store : h.peer).reserveWithin("race", 3, 50, 60_000),
        );
        const results = await Promise.all(tries);
        expect(results.filter((r) => r.ok)).toHaveLength(16);
        expect(await store.get("race")).toBe("48");
      });

      it("refuses a bad amount or limit and changes nothing", async () => {
        await expect(store.reserveWithin("bad", 0, 5)).rejects.toThrow(RangeError);
        await expect(store.reserveWithin("bad", 1.5, 5)).rejects.toThrow(RangeError);
        await expect(store.reserveWithin("bad", 1, -1)).rejects.toThrow(RangeError);
        expect(await store.get("bad")).toBeNull();
      });
    });

    describe("appendOnce", () => {
      const log = { counter: "log:seq", floor: "log:sent", itemPrefix: "log:n:" };

      it("numbers appends in order, storing each item; a repeated mark appends nothing and answers its number", async () => {
        expect(await store.appendOnce({ ...log, mark: "m:a" }, "a", 60_000)).toEqual({
          seq: 1,
          appended: true,
        });
        expect(await store.appendOnce(log, "b", 60_000)).toEqual({ seq: 2, appended: true });
        expect(await store.appendOnce({ ...log, mark: "m:a" }, "a again", 60_000)).toEqual({
          seq: 1,
          appended: false,
        });
        expect(await store.getMany(["log:n:1", "log:n:2", "log:n:3"])).toEqual(["a", "b", null]);
        expect(await store.get("log:seq")).toBe("2");
        expect(await store.get("m:a")).toBe("1");
      });

      it("never hands out a number at or below the floor, nor one whose item exists", async () => {
        // A failover lost the counter's tail while a reader had passed 7 and an item sits at 9.
        await store.set("log:seq", "3");
        await store.set("log:sent", "7");
        await store.set("log:n:9", "-");
        expect(await store.appendOnce(log, "x", 60_000)).toEqual({ seq: 8, appended: true });
        expect(await store.appendOnce(log, "y", 60_000)).toEqual({ seq: 10, appended: true });
        expect(await store.getMany(["log:n:8", "log:n:9", "log:n:10"])).toEqual(["x", "-", "y"]);
      });

      it("expires the item and the mark after ttlMs, and the mark may then append again", async () => {
        await store.appendOnce({ ...log, mark: "m:t" }, "t", TTL_MS);
        await h.elapse(PAST_TTL_MS);
        expect(await store.getMany(["log:n:1", "m:t"])).toEqual([null, null]);
        expect(await store.appendOnce({ ...log, mark: "m:t" }, "t", 60_000)).toEqual({
          seq: 2,
          appended: true,
        });
      });

      it(`appends once among ${RACERS} parallel appends of one mark, and numbers the others apart`, async () => {
        const marked = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            (i % 2 === 0 ? store : h.peer).appendOnce({ ...log, mark: "m:race" }, `r${i}`, 60_000),
          ),
        );
        expect(marked.filter((r) => r.appended)).toHaveLength(1);
        expect(new Set(marked.map((r) => r.seq))).toEqual(new Set([1]));
        const plain = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            (i % 2 === 0 ? store : h.peer).appendOnce(log, `p${i}`, 60_000),
          ),
        );
        expect(new Set(plain.map((r) => r.seq)).size).toBe(RACERS);
      });
    });

    describe("lists", () => {
      it("pushes newest first and trims to maxLength", async () => {
        for (const entry of ["a", "b", "c", "d"]) await store.listPush("audit", entry, 3);
        expect(await store.listRange("audit", 10)).toEqual(["d", "c", "b"]);
        expect(await store.listRange("audit", 2)).toEqual(["d", "c"]);
        expect(await store.listRange("audit", 0)).toEqual([]);
        expect(await store.listRange("missing", 5)).toEqual([]);
      });

      it("refuses a maxLength below 1", async () => {
        await expect(store.listPush("audit", "a", 0)).rejects.toThrow(RangeError);
        expect(await store.listRange("audit", 5)).toEqual([]);
      });

      it("keeps every entry of parallel pushes within maxLength", async () => {
        const pushes = Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? store : h.peer).listPush("log", `e${i}`, 20),
        );
        await Promise.all(pushes);
        const entries = await store.listRange("log", 100);
        expect(entries).toHaveLength(20);
        expect(new Set(entries).size).toBe(20);
      });
    });

    describe("hashes", () => {
      it("sets, reads and deletes fields", async () => {
        expect(await store.hashGet("h", "f")).toBeNull();
        expect(await store.hashGetAll("h")).toEqual({});
        await store.hashSet("h", "f", "1");
        await store.hashSet("h", "g", "2");
        await store.hashSet("h", "f", "3");
        expect(await store.hashGet("h", "f")).toBe("3");
        expect(await store.hashGetAll("h")).toEqual({ f: "3", g: "2" });
        await store.hashDel("h", "f");
        await store.hashDel("h", "nope");
        expect(await store.hashGetAll("h")).toEqual({ g: "2" });
      });

      it("reads and writes many fields at once, in the order asked, null where there is none", async () => {
        expect(await store.hashGetMany("h", ["a", "b"])).toEqual([null, null]);
        expect(await store.hashGetMany("h", [])).toEqual([]);
        await store.hashSetMany("h", []);
        await store.hashSet("h", "a", "0");
        await store.hashSetMany("h", [
          ["a", "1"],
          ["b", "2"],
          ["c", "3"],
        ]);
        expect(await store.hashGetMany("h", ["c", "nope", "a"])).toEqual(["3", null, "1"]);
        expect(await h.peer.hashGetAll("h")).toEqual({ a: "1", b: "2", c: "3" });
      });

      it("disappears when its last field is deleted, so the key can become a string", async () => {
        await store.hashSet("h", "only", "1");
        await store.hashDel("h", "only");
        expect(await store.setIfNotExists("h", "string now")).toBe(true);
      });

      it("expires as a whole after the TTL of its last write with one; a write without TTL keeps it", async () => {
        await store.hashSet("h", "f", "1", TTL_MS);
        await store.hashSet("h", "g", "2");
        expect(await h.peer.hashGetAll("h")).toEqual({ f: "1", g: "2" });
        await h.elapse(PAST_TTL_MS);
        expect(await store.hashGetAll("h")).toEqual({});
        await store.hashSet("kept", "f", "1");
        await h.elapse(PAST_TTL_MS);
        expect(await store.hashGet("kept", "f")).toBe("1");
      });
    });

    describe("sets", () => {
      it("adds members, counting only the new ones, and removes them", async () => {
        expect(await store.setMembers("s")).toEqual([]);
        expect(await store.setAdd("s", "a", "b")).toBe(2);
        expect(await store.setAdd("s", "b", "c")).toBe(1);
        expect(await store.setAdd("s")).toBe(0);
        expect([...(await store.setMembers("s"))].sort()).toEqual(["a", "b", "c"]);
        await store.setRemove("s", "a", "zz");
        await store.setRemove("s");
        expect([...(await store.setMembers("s"))].sort()).toEqual(["b", "c"]);
      });

      it("removes containers with del", async () => {
        await store.setAdd("s", "a");
        await store.listPush("l", "a", 5);
        await store.hashSet("h", "f", "v");
        await Promise.all([store.del("s"), store.del("l"), store.del("h")]);
        expect(await store.setMembers("s")).toEqual([]);
        expect(await store.listRange("l", 5)).toEqual([]);
        expect(await store.hashGetAll("h")).toEqual({});
      });
    });

    it("throws WRONGTYPE when a key is used as another kind", async () => {
      await store.listPush("list", "a", 5);
      await expect(store.get("list")).rejects.toThrow(/WRONGTYPE/);
      await expect(store.hashSet("list", "f", "v")).rejects.toThrow(/WRONGTYPE/);
      await store.set("string", "v");
      await expect(store.setAdd("string", "m")).rejects.toThrow(/WRONGTYPE/);
    });

    it("answers ping", async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
