import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import { updateVersioned, type VersionedKind } from "../../store/versioned.js";
import { type ConversationRef, conversationRefSchema } from "../invocation.js";

/**
 * An AML case: the alert model (src/core/alerts/alert.ts) with an owner and a timeline. Stored as
 * JSON under `case:<id>`; every change writes the next `version`, claimed first with SET NX, so
 * two people (or two instances) changing one case at once never overwrite each other. An address
 * has one case (`case:address:<address>`, set once with SET NX): a new finding is added to it, and
 * reopens it when it was closed.
 */
export type CaseState = "open" | "taken" | "cleared" | "reported";
export const CLOSED_STATES: ReadonlySet<CaseState> = new Set(["cleared", "reported"]);

export interface CaseEvent {
  what: "opened" | "finding" | "reopened" | "taken" | "note" | "cleared" | "reported" | "escalated";
  at: number;
  /** Who, as people read it (display name, or "the bot"). */
  by: string;
  byKey?: string;
  /** The finding, the note or the reason. */
  note?: string;
}

export interface CaseRecord {
  id: string;
  address: string;
  state: CaseState;
  openedAt: number;
  /** How many times it was opened (1, then +1 per reopening): the SLA job of each opening runs once. */
  opening: number;
  owner?: { by: string; byKey: string; at: number };
  version: number;
  timeline: CaseEvent[];
  /** Where its message was posted (the alert destination). */
  destinations: ConversationRef[];
  closedAt?: number;
}

const eventSchema = z.object({
  what: z.enum(["opened", "finding", "reopened", "taken", "note", "cleared", "reported", "escalated"]),
  at: z.number(),
  by: z.string(),
  byKey: z.string().optional(),
  note: z.string().optional(),
});

const recordSchema = z.object({
  id: z.string(),
  address: z.string(),
  state: z.enum(["open", "taken", "cleared", "reported"]),
  openedAt: z.number(),
  opening: z.number(),
  owner: z.object({ by: z.string(), byKey: z.string(), at: z.number() }).optional(),
  version: z.number(),
  timeline: z.array(eventSchema),
  destinations: z.array(conversationRefSchema),
  closedAt: z.number().optional(),
});

/** A case is kept a year: an examiner may ask long after it was closed. */
export const CASE_TTL_MS = 365 * 24 * 3_600_000;
const CASE_KEY = (id: string) => `case:${id}`;
const VERSION_KEY = (id: string, version: number) => `case:${id}:v${version}`;
const ADDRESS_KEY = (address: string) => `case:address:${address}`;
const FINDING_KEY = (key: string) => `case:finding:${key}`;
const SEQ_KEY = "cases:seq";
const ALL_CASES_KEY = "cases:all";

export const CASE_ID_PATTERN = /^C\d{1,9}$/;

export async function readCase(store: Store, id: string): Promise<CaseRecord | null> {
  if (!CASE_ID_PATTERN.test(id)) return null;
  return (await getJson(store, CASE_KEY(id), recordSchema)) as CaseRecord | null;
}

export async function readCases(store: Store): Promise<CaseRecord[]> {
  const ids = await store.setMembers(ALL_CASES_KEY);
  const out: CaseRecord[] = [];
  for (const id of ids) {
    const found = await readCase(store, id);
    if (found) out.push(found);
  }
  return out;
}

/** The case of an address, if it ever had one. */
export async function caseOfAddress(store: Store, address: string): Promise<CaseRecord | null> {
  const id = await store.get(ADDRESS_KEY(address));
  return id === null ? null : readCase(store, id);
}

/** True the first time a finding (a screening order, a deny-list change) is seen, on any instance. */
export const claimFinding = (store: Store, key: string): Promise<boolean> =>
  store.setIfNotExists(FINDING_KEY(key), "1", CASE_TTL_MS);

/**
 * The address's case, created when it has none. The new record is written under a fresh id
 * before the address key names it, so whoever loses the SET NX race finds the winner's record.
 */
export async function caseForAddress(
  store: Store,
  address: string,
  fresh: (id: string) => CaseRecord,
): Promise<{ created: boolean; record: CaseRecord }> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const known = await caseOfAddress(store, address);
    if (known) return { created: false, record: known };
    const id = `C${await store.incrBy(SEQ_KEY, 1)}`;
    const record = fresh(id);
    await store.setIfNotExists(VERSION_KEY(id, record.version), "1", CASE_TTL_MS);
    await setJson(store, CASE_KEY(id), record, CASE_TTL_MS);
    if (await store.setIfNotExists(ADDRESS_KEY(address), id, CASE_TTL_MS)) {
      await store.setAdd(ALL_CASES_KEY, id);
      return { created: true, record };
    }
    await store.del(CASE_KEY(id));
  }
  throw new Error(`could not open a case for ${address}`);
}

export type CaseTransition = (current: CaseRecord) => CaseRecord | { refused: string };

const cases: VersionedKind<CaseRecord> = {
  read: readCase,
  write: (store, id, record) => setJson(store, CASE_KEY(id), record, CASE_TTL_MS),
  versionKey: VERSION_KEY,
  ttlMs: CASE_TTL_MS,
};

/** Applies `change` to the latest version (src/store/versioned.ts: a loser decides again). */
export async function updateCase(
  store: Store,
  id: string,
  change: CaseTransition,
): Promise<{ ok: true; record: CaseRecord } | { ok: false; line: string; record: CaseRecord | null }> {
  const update = await updateVersioned(store, cases, id, change);
  if ("missing" in update) return { ok: false, line: `There is no case ${id}.`, record: null };
  if (!update.ok) return { ok: false, line: update.refused, record: update.current };
  return { ok: true, record: update.after };
}
