import type { ChainHead, Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";
import { hashOf } from "./csv-row.js";
import {
  GENESIS_HASH,
  isCharge,
  type LedgerEntry,
  type LedgerFields,
  type LedgerKind,
  ledgerEntrySchema,
} from "./entry.js";

/**
 * The spend ledger in the store: one chain across every instance. Each append is ONE atomic store
 * step (`Store.chainAppend`) on the head it was built on: the entry's `seq`, `at` and hash are
 * computed here from the head read just before, and when another instance appended in between the
 * step answers `moved` and the entry is built again on the new head, so `seq` has no gaps and
 * `prev_hash` is always the entry before. An id is appended once (a reconciler and a live answer
 * racing, a re-run job, two instances: one entry). Entries are kept in one list per UTC day (the
 * export and the day's readers walk it in order) for OPS_AUDIT_RETENTION_DAYS; on a cluster every
 * key of the bot shares one hash tag (src/store/redis-connect.ts), so the script's keys share a slot.
 */
const CHAIN = { head: "ledger:head", idPrefix: "ledger:id:" } as const;
const dayList = (day: string): string => `ledger:day:${day}`;
/** What one kind charged in a UTC month, integer SUN, written in the step that appends each charge. */
const monthTotal = (kind: LedgerKind, month: string): string => `ledger:month:${kind}:${month}`;
/** A month's total outlives its month, so it can still be shown on the 1st. */
const MONTH_TOTAL_TTL_MS = 40 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;
/** Reads walk a day in slices of this many entries (the export streams them). */
const SLICE = 1_000;
/** Appends that lose the head this often in a row are an error, not a busy minute. */
const MAX_ATTEMPTS = 100;

type Deps = Pick<CoreDeps, "store" | "now" | "settings">;

export interface Appended {
  entry: LedgerEntry;
  /** False: the id was written before (by this or another instance); `entry` is that one. */
  appended: boolean;
}

/** `YYYY-MM` of the UTC month of an ISO time or epoch ms. */
const monthOf = (at: string | number): string => new Date(at).toISOString().slice(0, 7);

/** What the entries of one kind charged in the UTC month of `now`, integer SUN (the re-screens' budget). */
export async function monthChargedSun(store: Store, kind: LedgerKind, now: number): Promise<number> {
  return Number((await store.get(monthTotal(kind, monthOf(now)))) ?? "0");
}

/** `YYYY-MM-DD` of the UTC day of an ISO time or epoch ms. */
export const dayOf = (at: string | number): string => new Date(at).toISOString().slice(0, 10);

async function headOf(store: Store): Promise<ChainHead> {
  const raw = await store.hashGetAll(CHAIN.head);
  return { seq: Number(raw.seq ?? "0"), hash: raw.hash ?? GENESIS_HASH, at: raw.at ?? "" };
}

/** Appends the outcome once per `id`; answers the entry (the earlier one for an id seen before). */
export async function appendToLedger(deps: Deps, id: string, fields: LedgerFields): Promise<Appended> {
  const ttlMs = (deps.settings.ledger.retentionDays + 1) * DAY_MS;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const prev = await headOf(deps.store);
    // Never before the entry it follows: a day's list stays in seq order across instances' clocks.
    const at = new Date(Math.max(deps.now(), Date.parse(prev.at) || 0)).toISOString();
    const chained = { ...fields, seq: prev.seq + 1, at, prevHash: prev.hash };
    const entry: LedgerEntry = { ...chained, hash: hashOf(chained) };
    const value = JSON.stringify(entry);
    const tallies = isCharge(entry)
      ? [{ key: monthTotal(entry.kind, monthOf(at)), by: entry.amountSun, ttlMs: MONTH_TOTAL_TTL_MS }]
      : [];
    const answer = await deps.store.chainAppend(
      CHAIN,
      { id, prev, hash: entry.hash, at, value, list: dayList(dayOf(at)), tallies },
      ttlMs,
    );
    if (answer.kind === "appended") return { entry, appended: true };
    if (answer.kind === "exists") return { entry: parseEntry(answer.value), appended: false };
  }
  throw new Error("the spend ledger's head kept moving: no entry appended");
}

function parseEntry(raw: string): LedgerEntry {
  return ledgerEntrySchema.parse(JSON.parse(raw));
}

/** The entry written under `id`, if any (kept as long as the ledger keeps its day). */
export async function ledgerEntryOf(store: Store, id: string): Promise<LedgerEntry | undefined> {
  const raw = await store.get(`${CHAIN.idPrefix}${id}`);
  return raw === null ? undefined : parseEntry(raw);
}

/** The chain's head: how many entries were ever written, and the last hash. */
export const ledgerHead = (store: Store): Promise<ChainHead> => headOf(store);

/** Every entry of one UTC day, oldest first, a slice at a time (flat memory for any day). */
async function* dayEntries(store: Store, day: string): AsyncGenerator<LedgerEntry> {
  for (let start = 0; ; start += SLICE) {
    const slice = await store.listSlice(dayList(day), start, SLICE);
    for (const raw of slice) yield parseEntry(raw);
    if (slice.length < SLICE) return;
  }
}

/** The UTC days from `from` to `to`, both included (`YYYY-MM-DD`). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(dayOf(t));
  return days;
}

/** Every entry of the days from `from` to `to`, oldest first. */
export async function* rangeEntries(store: Store, from: string, to: string): AsyncGenerator<LedgerEntry> {
  for (const day of daysBetween(from, to)) yield* dayEntries(store, day);
}

/** One day's entries in memory (a day's readers: digest, caps' notes, App Home). */
export async function readDay(store: Store, day: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for await (const entry of dayEntries(store, day)) entries.push(entry);
  return entries;
}

/** The entries of the `ms` before `now` (the runway's last 24 hours). */
export async function readSince(store: Store, now: number, ms: number): Promise<LedgerEntry[]> {
  const since = new Date(now - ms).toISOString();
  const days = daysBetween(dayOf(now - ms), dayOf(now));
  const all = (await Promise.all(days.map((d) => readDay(store, d)))).flat();
  return all.filter((e) => e.at >= since);
}
