import type { ComplianceVerdict } from "../../service/compliance.js";
import type { Store } from "../../store/store.js";
import { type ConversationRef, conversationKey, isPlatformName } from "../invocation.js";

/**
 * Watch state in the store, shared by every instance and kept across restarts:
 *
 * - `watch:all` — every watched address (what the deny-list re-check sends);
 * - `watch:conv:<conversation>` — hash address → WatchEntry (what `watch list` shows);
 * - `watch:by:<address>` — the conversations watching it (where a change is posted);
 * - `watch:verdict` — hash address → VerdictRecord: the last verdict and its change number `seq`,
 *   the mark that makes a change post once (the notification's dedup key carries `seq`);
 * - `watch:state` — the deny-list revision last re-checked in full, and when;
 * - `watch:screen` — hash address → ScreenSchedule for the opt-in AML re-screens.
 *
 * A watch belongs to a conversation, not a thread: `watch list` in a channel shows what any
 * thread of it added, and alerts go to the channel.
 */
const ALL_KEY = "watch:all";
const CONV_KEY = (conversation: string) => `watch:conv:${conversation}`;
const BY_KEY = (address: string) => `watch:by:${address}`;
const VERDICT_KEY = "watch:verdict";
const STATE_KEY = "watch:state";
const SCREEN_KEY = "watch:screen";
const BASELINE_DUE_KEY = "watch:baseline-due";

export type ScreenPeriod = "daily" | "weekly";
export const SCREEN_PERIOD_MS: Record<ScreenPeriod, number> = {
  daily: 24 * 3_600_000,
  weekly: 7 * 24 * 3_600_000,
};

export interface WatchEntry {
  address: string;
  label?: string;
  /** actorKey of who added it (`slack:U1`), or `auto` for an address ordered through the bot. */
  addedBy: string;
  addedByName?: string;
  /** When it was added (ms). */
  since: number;
  screen?: ScreenPeriod;
}

export interface VerdictRecord {
  category: string;
  blocked: boolean;
  severity?: string;
  reason_code?: string;
  label?: string;
  /** When this verdict was first seen (ms). */
  since: number;
  /** Changes seen so far for this address: part of the alert's dedup key. */
  seq: number;
}

export interface ScreenResult {
  score: string | null;
  scaleMax: number;
  level: string;
  sanctioned: boolean;
  topExposure?: string;
  at: number;
}

export interface ScreenSchedule {
  period: ScreenPeriod;
  nextAt: number;
  last?: ScreenResult;
}

export interface WatchState {
  revision?: number;
  /** When every watched address was last re-checked (ms). */
  checkedAt?: number;
}

/** Watches belong to the conversation, whatever thread the command came from. */
const watchConversation = (c: ConversationRef): ConversationRef => ({
  platform: c.platform,
  id: c.id,
});

function conversationOf(key: string): ConversationRef | undefined {
  const at = key.indexOf(":");
  const platform = key.slice(0, at);
  if (at < 1 || !isPlatformName(platform)) return undefined;
  return { platform, id: key.slice(at + 1) };
}

const parse = <T>(raw: string | null | undefined): T | undefined => {
  if (raw === null || raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
};

export async function readWatch(
  store: Store,
  conversation: ConversationRef,
  address: string,
): Promise<WatchEntry | undefined> {
  return parse<WatchEntry>(
    await store.hashGet(CONV_KEY(conversationKey(watchConversation(conversation))), address),
  );
}

export async function saveWatch(
  store: Store,
  conversation: ConversationRef,
  entry: WatchEntry,
): Promise<void> {
  const key = conversationKey(watchConversation(conversation));
  await store.hashSet(CONV_KEY(key), entry.address, JSON.stringify(entry));
  await store.setAdd(BY_KEY(entry.address), key);
  await store.setAdd(ALL_KEY, entry.address);
}

/** How many store writes a list of watches has in flight at once (they share one connection). */
const WRITE_CHUNK = 1_000;
/** How many fields one HMGET or HSET of the watch state names. */
const FIELDS_CHUNK = 1_000;

/**
 * Many watches of one conversation: the same records as `saveWatch`, written a chunk at a time
 * with the chunk's writes in flight together (one round trip per chunk, not three per address).
 */
export async function saveWatches(
  store: Store,
  conversation: ConversationRef,
  entries: readonly WatchEntry[],
): Promise<void> {
  const key = conversationKey(watchConversation(conversation));
  for (let i = 0; i < entries.length; i += WRITE_CHUNK) {
    const chunk = entries.slice(i, i + WRITE_CHUNK);
    await Promise.all([
      store.hashSetMany(
        CONV_KEY(key),
        chunk.map((entry) => [entry.address, JSON.stringify(entry)] as const),
      ),
      ...chunk.map((entry) => store.setAdd(BY_KEY(entry.address), key)),
    ]);
    await store.setAdd(ALL_KEY, ...chunk.map((e) => e.address));
  }
}

/** The watches of these addresses in one conversation (those it has), by address: one HMGET per 1000. */
export async function readWatches(
  store: Store,
  conversation: ConversationRef,
  addresses: readonly string[],
): Promise<Map<string, WatchEntry>> {
  const key = CONV_KEY(conversationKey(watchConversation(conversation)));
  const out = new Map<string, WatchEntry>();
  for (let i = 0; i < addresses.length; i += FIELDS_CHUNK) {
    const chunk = addresses.slice(i, i + FIELDS_CHUNK);
    for (const [j, raw] of (await store.hashGetMany(key, chunk)).entries()) {
      const entry = parse<WatchEntry>(raw);
      if (entry) out.set(chunk[j]!, entry);
    }
  }
  return out;
}

/** Addresses whose first verdict the next tick takes (their open lookup had no free slot). */
export const markBaselineDue = (store: Store, address: string): Promise<number> =>
  store.setAdd(BASELINE_DUE_KEY, address);
export const baselinesDue = (store: Store): Promise<string[]> => store.setMembers(BASELINE_DUE_KEY);
export const clearBaselinesDue = (store: Store, addresses: readonly string[]): Promise<void> =>
  store.setRemove(BASELINE_DUE_KEY, ...addresses);

/** Removes one conversation's watch; the address leaves the re-checks when nobody watches it. */
export async function deleteWatch(
  store: Store,
  conversation: ConversationRef,
  address: string,
): Promise<boolean> {
  const key = conversationKey(watchConversation(conversation));
  const existed = (await store.hashGet(CONV_KEY(key), address)) !== null;
  if (!existed) return false;
  await store.hashDel(CONV_KEY(key), address);
  await store.setRemove(BY_KEY(address), key);
  if ((await store.setMembers(BY_KEY(address))).length === 0) {
    await store.setRemove(ALL_KEY, address);
    await store.hashDel(VERDICT_KEY, address);
  }
  return true;
}

export async function listWatches(store: Store, conversation: ConversationRef): Promise<WatchEntry[]> {
  const all = await store.hashGetAll(CONV_KEY(conversationKey(watchConversation(conversation))));
  const entries = Object.values(all).flatMap((raw) => parse<WatchEntry>(raw) ?? []);
  return entries.sort((a, b) => a.since - b.since || a.address.localeCompare(b.address));
}

export const watchedAddresses = (store: Store): Promise<string[]> => store.setMembers(ALL_KEY);

export async function watchersOf(store: Store, address: string): Promise<ConversationRef[]> {
  const keys = await store.setMembers(BY_KEY(address));
  return keys
    .flatMap((key) => conversationOf(key) ?? [])
    .sort((a, b) => conversationKey(a).localeCompare(conversationKey(b)));
}

/** The screening period the watchers of an address ask for (the shortest), if any. */
async function wantedScreen(store: Store, address: string): Promise<ScreenPeriod | undefined> {
  let wanted: ScreenPeriod | undefined;
  for (const key of await store.setMembers(BY_KEY(address))) {
    const entry = parse<WatchEntry>(await store.hashGet(CONV_KEY(key), address));
    if (entry?.screen === "daily") return "daily";
    if (entry?.screen === "weekly") wanted = "weekly";
  }
  return wanted;
}

/** The last verdicts of these addresses (those that have one): one HMGET per 1000, never the whole hash. */
export async function readVerdicts(
  store: Store,
  addresses: readonly string[],
): Promise<Map<string, VerdictRecord>> {
  const out = new Map<string, VerdictRecord>();
  for (let i = 0; i < addresses.length; i += FIELDS_CHUNK) {
    const chunk = addresses.slice(i, i + FIELDS_CHUNK);
    const raws = await store.hashGetMany(VERDICT_KEY, chunk);
    for (const [j, raw] of raws.entries()) {
      const record = parse<VerdictRecord>(raw);
      if (record) out.set(chunk[j]!, record);
    }
  }
  return out;
}

/** Many verdicts at once: one HSET per 1000. */
export async function saveVerdicts(
  store: Store,
  records: readonly (readonly [address: string, record: VerdictRecord])[],
): Promise<void> {
  for (let i = 0; i < records.length; i += FIELDS_CHUNK) {
    const chunk = records.slice(i, i + FIELDS_CHUNK);
    await store.hashSetMany(
      VERDICT_KEY,
      chunk.map(([address, record]) => [address, JSON.stringify(record)] as const),
    );
  }
}

export async function readVerdict(store: Store, address: string): Promise<VerdictRecord | undefined> {
  return parse<VerdictRecord>(await store.hashGet(VERDICT_KEY, address));
}

export const saveVerdict = (store: Store, address: string, record: VerdictRecord): Promise<void> =>
  store.hashSet(VERDICT_KEY, address, JSON.stringify(record));

export async function readState(store: Store): Promise<WatchState> {
  return parse<WatchState>(await store.get(STATE_KEY)) ?? {};
}

export const saveState = (store: Store, state: WatchState): Promise<void> =>
  store.set(STATE_KEY, JSON.stringify(state));

/** The re-screen schedules of these addresses (those that have one). */
export async function readScreensOf(
  store: Store,
  addresses: readonly string[],
): Promise<Map<string, ScreenSchedule>> {
  const out = new Map<string, ScreenSchedule>();
  if (addresses.length === 0) return out;
  const raws = await store.hashGetMany(SCREEN_KEY, addresses);
  for (const [j, raw] of raws.entries()) {
    const schedule = parse<ScreenSchedule>(raw);
    if (schedule) out.set(addresses[j]!, schedule);
  }
  return out;
}

export async function readScreens(store: Store): Promise<Map<string, ScreenSchedule>> {
  const all = await store.hashGetAll(SCREEN_KEY);
  const out = new Map<string, ScreenSchedule>();
  for (const [address, raw] of Object.entries(all)) {
    const schedule = parse<ScreenSchedule>(raw);
    if (schedule) out.set(address, schedule);
  }
  return out;
}

async function readScreen(store: Store, address: string): Promise<ScreenSchedule | undefined> {
  return parse<ScreenSchedule>(await store.hashGet(SCREEN_KEY, address));
}

export const saveScreen = (store: Store, address: string, schedule: ScreenSchedule): Promise<void> =>
  store.hashSet(SCREEN_KEY, address, JSON.stringify(schedule));

const deleteScreen = (store: Store, address: string): Promise<void> => store.hashDel(SCREEN_KEY, address);

/** Keeps the screening schedule in line with what the watchers ask for (none: no re-screens). */
export async function syncScreen(store: Store, address: string, now: number): Promise<void> {
  const wanted = await wantedScreen(store, address);
  const current = await readScreen(store, address);
  if (wanted === undefined) {
    if (current) await deleteScreen(store, address);
    return;
  }
  if (current?.period === wanted) return;
  const periodMs = SCREEN_PERIOD_MS[wanted];
  // A new schedule is due at once: its first result is the baseline later ones are compared with.
  const nextAt = current ? Math.min(current.nextAt, now + periodMs) : now;
  await saveScreen(store, address, { period: wanted, nextAt, ...(current?.last && { last: current.last }) });
}

/** A deny-list verdict as the watchlist keeps it: since when, and its change number. */
export const recordOf = (v: ComplianceVerdict, since: number, seq: number): VerdictRecord => ({
  category: v.category,
  blocked: v.blocked,
  ...(v.severity && { severity: v.severity }),
  ...(v.reason_code && { reason_code: v.reason_code }),
  ...(v.label && { label: v.label }),
  since,
  seq,
});
