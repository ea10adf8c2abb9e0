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
  /** Pushes to the front of a list and trims it to `maxLength` (newest first). */
  listPush(key: string, value: string, maxLength: number): Promise<void>;
  /** The first `count` entries of a list, newest first. */
  listRange(key: string, count: number): Promise<string[]>;
  /** Sets one field; with `ttlMs` the whole hash expires that long after this write. */
  hashSet(key: string, field: string, value: string, ttlMs?: number): Promise<void>;
  hashGet(key: string, field: string): Promise<string | null>;
  hashGetAll(key: string): Promise<Record<string, string>>;
  hashDel(key: string, field: string): Promise<void>;
  /** Adds members to a set; returns how many were new. */
  setAdd(key: string, ...members: string[]): Promise<number>;
  setMembers(key: string): Promise<string[]>;
  setRemove(key: string, ...members: string[]): Promise<void>;
  /** True when the backend answers (used by /healthz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The answer of `reserveWithin`. */
interface Reservation {
  ok: boolean;
  total: number;
}
