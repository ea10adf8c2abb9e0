import { type Clock, systemClock } from "../clock.js";
import { checkIncrement, checkMaxLength, checkReservation, checkTtlMs } from "./checks.js";
import type { Store } from "./store.js";

/**
 * In-process `Store` for the demo and for tests: one process, nothing survives a restart.
 * TTLs are checked lazily against the injected clock, so a test moves time instead of sleeping.
 * It mirrors Redis where callers could notice: containers vanish when emptied, `set` clears a
 * TTL, `incrBy` keeps one, and using a key as the wrong kind throws WRONGTYPE.
 */
export interface MemoryStoreOptions {
  now?: Clock;
}

type Value = string | string[] | Map<string, string> | Set<string>;

interface Entry {
  value: Value;
  expiresAt: number | undefined;
}

const WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
/** Expired keys nobody reads again are swept after this many writes, so the map stays bounded. */
const SWEEP_EVERY_WRITES = 1_000;

export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const now = options.now ?? systemClock;
  const entries = new Map<string, Entry>();
  let closed = false;
  let writes = 0;

  function live(key: string): Entry | undefined {
    if (closed) throw new Error("store is closed");
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function write(key: string, value: Value, expiresAt: number | undefined): void {
    entries.set(key, { value, expiresAt });
    writes += 1;
    if (writes % SWEEP_EVERY_WRITES === 0) sweep();
  }

  function sweep(): void {
    const t = now();
    for (const [key, entry] of entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= t) entries.delete(key);
    }
  }

  function expiry(ttlMs: number | undefined): number | undefined {
    const checked = checkTtlMs(ttlMs);
    return checked === undefined ? undefined : now() + checked;
  }

  function stringAt(key: string): string | null {
    const entry = live(key);
    if (entry === undefined) return null;
    if (typeof entry.value !== "string") throw new Error(WRONGTYPE);
    return entry.value;
  }

  /** The container at `key`, created (not yet stored) when absent. */
  function container<T extends Value>(key: string, make: () => T, is: (v: Value) => v is T): T {
    const entry = live(key);
    if (entry === undefined) return make();
    if (!is(entry.value)) throw new Error(WRONGTYPE);
    return entry.value;
  }

  const list = (key: string) => container(key, () => [] as string[], Array.isArray);
  const hash = (key: string) => container(key, () => new Map<string, string>(), isMap);
  const set = (key: string) => container(key, () => new Set<string>(), isSet);

  /** Stores a container back, or deletes the key when it became empty (as Redis does). */
  function keep(key: string, value: string[] | Map<string, string> | Set<string>): void {
    const size = Array.isArray(value) ? value.length : value.size;
    if (size === 0) entries.delete(key);
    else write(key, value, entries.get(key)?.expiresAt);
  }

  function incrBy(key: string, by: number, ttlMs?: number): number {
    checkIncrement(by);
    const current = stringAt(key);
    if (current !== null && !/^-?\d+$/.test(current)) {
      throw new Error("ERR value is not an integer or out of range");
    }
    const next = Number(current ?? "0") + by;
    const expiresAt = current === null ? expiry(ttlMs) : live(key)?.expiresAt;
    write(key, String(next), expiresAt);
    return next;
  }

  return {
    get: async (key) => stringAt(key),
    getMany: async (keys) => keys.map(stringAt),
    set: async (key, value, ttlMs) => {
      live(key);
      write(key, value, expiry(ttlMs));
    },
    setIfNotExists: async (key, value, ttlMs) => {
      const expiresAt = expiry(ttlMs);
      if (live(key) !== undefined) return false;
      write(key, value, expiresAt);
      return true;
    },
    setManyIfNotExists: async (keys, value, ttlMs) => {
      const expiresAt = expiry(ttlMs);
      return keys.map((key) => {
        if (live(key) !== undefined) return false;
        write(key, value, expiresAt);
        return true;
      });
    },
    take: async (key) => {
      const value = stringAt(key);
      if (value !== null) entries.delete(key);
      return value;
    },
    del: async (key) => {
      live(key);
      entries.delete(key);
    },
    incrBy: async (key, by, ttlMs) => incrBy(key, by, ttlMs),
    // One synchronous step: no other caller runs between the check and the add.
    reserveWithin: async (key, amount, limit, ttlMs) => {
      checkReservation(amount, limit);
      const current = Number(stringAt(key) ?? "0");
      if (current + amount > limit) return { ok: false, total: current };
      return { ok: true, total: incrBy(key, amount, ttlMs) };
    },
    appendOnce: async (log, value, ttlMs) => {
      const expiresAt = expiry(ttlMs);
      const marked = log.mark === undefined ? null : stringAt(log.mark);
      if (marked !== null) return { seq: Number(marked), appended: false };
      let seq = Math.max(incrBy(log.counter, 1), Number(stringAt(log.floor) ?? "0") + 1);
      write(log.counter, String(seq), live(log.counter)?.expiresAt);
      while (live(`${log.itemPrefix}${seq}`) !== undefined) seq = incrBy(log.counter, 1);
      write(`${log.itemPrefix}${seq}`, value, expiresAt);
      if (log.mark !== undefined) write(log.mark, String(seq), expiresAt);
      return { seq, appended: true };
    },
    // One synchronous step, as the Redis script is one.
    chainAppend: async (chain, entry, ttlMs) => {
      const expiresAt = expiry(ttlMs);
      for (const tally of entry.tallies ?? []) checkIncrement(tally.by);
      const idKey = `${chain.idPrefix}${entry.id}`;
      const existing = stringAt(idKey);
      if (existing !== null) return { kind: "exists", value: existing };
      const head = hash(chain.head);
      const seq = Number(head.get("seq") ?? "0");
      if (seq !== entry.prev.seq || (seq > 0 && head.get("hash") !== entry.prev.hash))
        return { kind: "moved" };
      head
        .set("seq", String(seq + 1))
        .set("hash", entry.hash)
        .set("at", entry.at);
      keep(chain.head, head);
      const items = list(entry.list);
      items.push(entry.value);
      write(entry.list, items, expiresAt);
      write(idKey, entry.value, expiresAt);
      for (const tally of entry.tallies ?? []) {
        const total = incrBy(tally.key, tally.by);
        write(tally.key, String(total), expiry(tally.ttlMs));
      }
      return { kind: "appended", seq: seq + 1 };
    },
    listSlice: async (key, start, count) =>
      count <= 0 ? [] : list(key).slice(Math.floor(start), Math.floor(start + count)),
    listPush: async (key, value, maxLength) => {
      const max = checkMaxLength(maxLength);
      const items = list(key);
      items.unshift(value);
      items.length = Math.min(items.length, max);
      keep(key, items);
    },
    listRange: async (key, count) => (count <= 0 ? [] : list(key).slice(0, Math.floor(count))),
    hashSet: async (key, field, value, ttlMs) => {
      const fields = hash(key).set(field, value);
      if (ttlMs === undefined) keep(key, fields);
      else write(key, fields, expiry(ttlMs));
    },
    hashGet: async (key, field) => hash(key).get(field) ?? null,
    hashGetAll: async (key) => Object.fromEntries(hash(key)),
    hashGetMany: async (key, fields) => {
      const all = hash(key);
      return fields.map((field) => all.get(field) ?? null);
    },
    hashSetMany: async (key, entries) => {
      if (entries.length === 0) return;
      const fields = hash(key);
      for (const [field, value] of entries) fields.set(field, value);
      keep(key, fields);
    },
    hashDel: async (key, field) => {
      const fields = hash(key);
      fields.delete(field);
      keep(key, fields);
    },
    setAdd: async (key, ...members) => {
      const all = set(key);
      const before = all.size;
      for (const member of members) all.add(member);
      if (members.length > 0) keep(key, all);
      return all.size - before;
    },
    setMembers: async (key) => [...set(key)],
    setRemove: async (key, ...members) => {
      const all = set(key);
      for (const member of members) all.delete(member);
      if (members.length > 0) keep(key, all);
    },
    ping: async () => !closed,
    close: async () => {
      closed = true;
      entries.clear();
    },
  };
}

const isMap = (v: Value): v is Map<string, string> => v instanceof Map;
const isSet = (v: Value): v is Set<string> => v instanceof Set;
