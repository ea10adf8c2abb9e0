import type { Store } from "./store.js";

/** The reads a module makes of the store, which a read ahead can answer (`readAhead`). */
export type StoreReads = Pick<Store, "get" | "getMany">;

/**
 * Keys a caller will read, fetched now in one round trip (MGET) while it waits on something else
 * (a quote's deny-list lookup): the first read of each is answered from that batch, every later
 * one (and any key not named) from the store itself. Only for reads that may be a moment old:
 * nothing written meanwhile is seen by the first read.
 */
export function readAhead(store: Store, keys: readonly string[]): StoreReads {
  const unique = [...new Set(keys)];
  const batch = unique.length === 0 ? Promise.resolve([]) : store.getMany(unique);
  // A failed batch is read again key by key (that read fails or answers on its own); never unhandled.
  const values = batch.then(
    (found) => new Map(unique.map((key, i) => [key, found[i] ?? null])),
    () => undefined,
  );
  const unread = new Set(unique);

  async function take(keysWanted: readonly string[]): Promise<(string | null)[] | undefined> {
    if (keysWanted.length === 0 || !keysWanted.every((key) => unread.has(key))) return undefined;
    for (const key of keysWanted) unread.delete(key);
    const found = await values;
    if (found === undefined) return undefined;
    return keysWanted.map((key) => found.get(key) ?? null);
  }

  return {
    async get(key) {
      const ahead = await take([key]);
      return ahead === undefined ? store.get(key) : (ahead[0] ?? null);
    },
    async getMany(keysWanted) {
      return (await take(keysWanted)) ?? store.getMany(keysWanted);
    },
  };
}
