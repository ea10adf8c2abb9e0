import type { z } from "zod";
import type { Store } from "./store.js";

/**
 * JSON values in the store, checked with a zod schema on the way out. A value that is not JSON
 * or no longer matches the schema (an older deploy wrote it, someone edited Redis by hand) reads
 * as null: the caller treats it like an expired entry instead of failing in front of a user.
 * `onCorrupt` lets the caller log it; the raw value is not passed on, since it may hold secrets.
 */
export type CorruptValueHandler = (key: string, reason: string) => void;

export async function getJson<S extends z.ZodType>(
  store: Pick<Store, "get">,
  key: string,
  schema: S,
  onCorrupt?: CorruptValueHandler,
): Promise<z.output<S> | null> {
  return decode(key, await store.get(key), schema, onCorrupt);
}

export async function setJson(store: Store, key: string, value: unknown, ttlMs?: number): Promise<void> {
  await store.set(key, encode(value), ttlMs);
}

/** SET NX with a JSON value: true when this call created the key. */
export async function setJsonIfNotExists(
  store: Store,
  key: string,
  value: unknown,
  ttlMs?: number,
): Promise<boolean> {
  return store.setIfNotExists(key, encode(value), ttlMs);
}

function encode(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify(undefined) is undefined: storing it would read back as a corrupt value.
  if (text === undefined) throw new TypeError("setJson needs a JSON-serialisable value");
  return text;
}

function decode<S extends z.ZodType>(
  key: string,
  raw: string | null,
  schema: S,
  onCorrupt: CorruptValueHandler | undefined,
): z.output<S> | null {
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    onCorrupt?.(key, "not JSON");
    return null;
  }
  const result = schema.safeParse(parsed);
  if (result.success) return result.data;
  onCorrupt?.(key, `does not match the schema: ${result.error.issues.map(describeIssue).join("; ")}`);
  return null;
}

const describeIssue = (issue: z.core.$ZodIssue): string =>
  `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.code}`;
