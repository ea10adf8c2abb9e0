import type { Store } from "./store.js";

/** A record changed only through `updateVersioned`: each change is a new `version`. */
export interface VersionedRecord {
  version: number;
}

/** Where a kind of versioned record lives: how to read one, and the marks that claim a version. */
export interface VersionedKind<T extends VersionedRecord> {
  read(store: Store, id: string): Promise<T | null>;
  write(store: Store, id: string, record: T): Promise<void>;
  versionKey(id: string, version: number): string;
  ttlMs: number;
}

export type VersionedChange<T> = (current: T) => T | { refused: string };

export type VersionedUpdate<T> =
  | { ok: true; before: T; after: T }
  | { ok: false; refused: string; current: T }
  | { ok: false; missing: true };

/**
 * Applies `change` to the record's latest version: the next version is claimed with SET NX, so of
 * two concurrent changes (two instances, a double click) one wins and the other is decided again
 * on what the winner wrote.
 */
export async function updateVersioned<T extends VersionedRecord>(
  store: Store,
  kind: VersionedKind<T>,
  id: string,
  change: VersionedChange<T>,
): Promise<VersionedUpdate<T>> {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const current = await kind.read(store, id);
    if (current === null) return { ok: false, missing: true };
    const next = change(current);
    if ("refused" in next) return { ok: false, refused: next.refused, current };
    const after = { ...next, version: current.version + 1 };
    if (!(await store.setIfNotExists(kind.versionKey(id, after.version), "1", kind.ttlMs))) continue;
    await kind.write(store, id, after);
    return { ok: true, before: current, after };
  }
  throw new Error(`${id} kept changing under this update`);
}
