/**
 * Every piece of shared state lives behind this interface: pending orders, button tokens,
 * deduplication marks, audit entries, registered webhook secrets, subscriptions.
 * Two implementations: Redis (real, shared by every instance) and in-process (demo, one instance).
 * Values are strings; callers serialise (see `store-json.ts`). Keys are relative: the
 * implementation adds its own prefix, so tests can share one Redis server.
 */
export interface Store {
  get(key: string): Promise<string | null>;
  /** Several values in one round trip (MGET), in the order of `keys`; null where there is none. */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  /** Sets a value, replacing any old one; with `ttlMs` it expires. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Atomic SET NX: true when this call created the key (dedup, locks, one-time claims). */
  setIfNotExists(key: string, value: string, ttlMs?: number): Promise<boolean>;
  /** `setIfNotExists` for each key in one round trip, in order (a key twice: the first wins). */
  setManyIfNotExists(keys: readonly string[], value: string, ttlMs?: number): Promise<boolean[]>;
  /** Atomic read-and-delete (GETDEL): the one caller that gets a value owns it. */
  take(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  /** Atomic increment by an integer; sets `ttlMs` when the key is created by this call. */
  incrBy(key: string, by: number, ttlMs?: number): Promise<number>;
  /**
   * Adds `amount` (a positive integer) to the counter at `key` only when the result stays within
   * `limit`, as ONE atomic step (check and add can never interleave with another caller's). Sets
   * `ttlMs` when this call creates the key. `total` is the counter after the call: the new total
   * when reserved, the unchanged one when refused.
   */
  reserveWithin(key: string, amount: number, limit: number, ttlMs?: number): Promise<Reservation>;
  /**
   * Appends `value` to a numbered log (a mailbox), at most once per `log.mark`, as ONE atomic step:
   * unless the mark exists, takes the next number of the counter that is above the number stored at
   * `log.floor` and whose item (`log.itemPrefix` + number) is free, stores `value` there and the
   * number at the mark, both for `ttlMs`. Answers the number, and whether this call appended (false:
   * the number the mark holds). Number, item and mark are written together or not at all, so a
   * failover that loses a tail of writes never leaves a mark without its item; the floor keeps a
   * counter that lost its tail from handing out numbers a reader has already passed.
   */
  appendOnce(log: NumberedLog, value: string, ttlMs: number): Promise<Appended>;
  /**
   * Appends one entry to a hash chain (the spend ledger) as ONE atomic step, or nothing: when
   * `entry.id` was appended before, answers that entry's value; when the head (`chain.head`, a hash
   * of `seq`, `hash`, `at`) is no longer `entry.prev`, answers `moved` (the caller builds the entry
   * again on the new head). Otherwise the head becomes (`prev.seq + 1`, `entry.hash`, `entry.at`),
   * `entry.value` is pushed to the END of `entry.list` and kept under the id, both for `ttlMs`;
   * in the same step each of `entry.tallies` is incremented by its `by` (kept `ttlMs` of its own),
   * so a total read from them always agrees with the entries appended.
   */
  chainAppend(chain: ChainLog, entry: ChainItem, ttlMs: number): Promise<ChainAppended>;
  /** `count` entries of a list from index `start` (0: the first pushed to its end by `chainAppend`). */
  listSlice(key: string, start: number, count: number): Promise<string[]>;
  /** Pushes to the front of a list and trims it to `maxLength` (newest first). */
  listPush(key: string, value: string, maxLength: number): Promise<void>;
  /** The first `count` entries of a list, newest first. */
  listRange(key: string, count: number): Promise<string[]>;
  /** Sets one field; with `ttlMs` the whole hash expires that long after this write. */
  hashSet(key: string, field: string, value: string, ttlMs?: number): Promise<void>;
  hashGet(key: string, field: string): Promise<string | null>;
  hashGetAll(key: string): Promise<Record<string, string>>;
  /** Several fields of one hash in one round trip (HMGET), in the order of `fields`; null where there is none. */
  hashGetMany(key: string, fields: readonly string[]): Promise<(string | null)[]>;
  /** Several fields of one hash in one round trip (HSET field value …), without a TTL. */
  hashSetMany(key: string, entries: readonly (readonly [field: string, value: string])[]): Promise<void>;
  hashDel(key: string, field: string): Promise<void>;
  /** Adds members to a set; returns how many were new. */
  setAdd(key: string, ...members: string[]): Promise<number>;
  setMembers(key: string): Promise<string[]>;
  setRemove(key: string, ...members: string[]): Promise<void>;
  /** True when the backend answers (used by /healthz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Where `appendOnce` writes: keys relative to the store, like every other key. */
interface NumberedLog {
  counter: string;
  /** Numbers at or below the one stored here are never handed out (what a reader has passed). */
  floor: string;
  itemPrefix: string;
  /** Present: the append happens once for it. */
  mark?: string;
}

/** A hash chain: its head and where each entry is kept by its id (keys relative to the store). */
interface ChainLog {
  head: string;
  idPrefix: string;
}

/** The head of a chain: its last entry's number, hash and time; seq 0 when it is empty. */
export interface ChainHead {
  seq: number;
  hash: string;
  at: string;
}

interface ChainItem {
  id: string;
  prev: ChainHead;
  hash: string;
  at: string;
  value: string;
  list: string;
  /** Totals kept beside the chain (integer counters), incremented only when the entry is appended. */
  tallies?: readonly { key: string; by: number; ttlMs: number }[];
}

type ChainAppended =
  | { kind: "appended"; seq: number }
  | { kind: "exists"; value: string }
  | { kind: "moved" };

export interface Appended {
  seq: number;
  appended: boolean;
}

/** The answer of `reserveWithin`. */
interface Reservation {
  ok: boolean;
  total: number;
}
