import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import { type PriceList, type PricingServiceName, priceListSchema } from "../../service/pricing.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { Store } from "../../store/store.js";
import { setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * The one price list cache: `prices`, every quote and the Confirm's live read all read and write
 * it, so `prices` and a quote never show two prices at the same moment. One entry per service
 * (the list as the service sent it, cut down to that service), kept in the store for the
 * service's own `cache_ttl` and never past the end of its current period or window, so the period
 * marked current is never a stale one. A copy past half its life is replaced in the background
 * (one instance at a time), so a steady stream of quotes never waits for the list.
 *
 * A cached list is not enough to spend on (the service may change prices within `cache_ttl`):
 * a Confirm reads it live (`readLivePriceList`), which writes the cache as any fetch does.
 */
const MIN_TTL_MS = 1_000;
/** Used when a service names no usable `cache_ttl`. */
const FALLBACK_TTL_MS = 60_000;
/** Share of an entry's life after which it is renewed behind the quotes. */
const REFRESH_AFTER_SHARE = 0.5;
const REFRESH_LOCK_MS = 15_000;
const DAY_MS = 86_400_000;

/** Services the service leaves out of its default list (the spec: returned only when asked for by name). */
export const OPT_IN_SERVICES: readonly PricingServiceName[] = ["bandwidth"];

type PriceDeps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

const entrySchema = z.object({
  fetchedAt: z.number(),
  /** The service's `cache_ttl`, in ms. */
  ttlMs: z.number(),
  /** fetchedAt + ttlMs, cut at the end of the service's current period or window. */
  validUntil: z.number(),
  list: priceListSchema,
});
type Entry = z.infer<typeof entrySchema>;

const entryKey = (name: PricingServiceName): string => `pricing:service:${name}`;
/** The names the service's default list carried last time (which services `prices` shows). */
const DEFAULT_SET_KEY = "pricing:default-set";

/** The store keys `getPriceList(…, services)` reads first, for a caller that reads them ahead. */
export const priceListKeys = (services: readonly PricingServiceName[]): string[] => services.map(entryKey);

/** Milliseconds from `now` to the next `HH:MM` UTC ("24:00" is midnight); undefined when unreadable. */
function msUntilUtc(hhmm: string, now: number): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  if (!match) return undefined;
  const target = (Number(match[1]) * 60 + Number(match[2])) * 60_000;
  const sinceMidnight = ((now % DAY_MS) + DAY_MS) % DAY_MS;
  const diff = (((target - sinceMidnight) % DAY_MS) + DAY_MS) % DAY_MS;
  return diff === 0 ? DAY_MS : diff;
}

/** The service's `cache_ttl` in ms (a fallback when it names none). */
function ttlOf(list: PriceList, name: PricingServiceName): number {
  const ttl = list.data.services[name]?.cache_ttl;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) return FALLBACK_TTL_MS;
  return Math.max(MIN_TTL_MS, ttl * 1000);
}

/** When the service's current period (or bandwidth window) ends, from `now`; undefined when it names none. */
function periodEndsInMs(list: PriceList, name: PricingServiceName, now: number): number | undefined {
  const service = list.data.services[name];
  if (!service) return undefined;
  const ends =
    "periods" in service
      ? service.periods.filter((p) => p.is_current).map((p) => p.end)
      : "windows" in service
        ? service.windows.filter((w) => w.label === service.window).map((w) => w.end)
        : [];
  const ms = ends.map((end) => msUntilUtc(end, now)).filter((n): n is number => n !== undefined);
  return ms.length === 0 ? undefined : Math.min(...ms);
}

/** The names a list carries, in the order it sent them. */
function servicesOf(list: PriceList): PricingServiceName[] {
  const services = list.data.services;
  return (Object.keys(services) as PricingServiceName[]).filter((name) => services[name] !== undefined);
}

/** The list cut down to one service (the envelope kept). */
function onlyService(list: PriceList, name: PricingServiceName): PriceList {
  return { ...list, data: { ...list.data, services: { [name]: list.data.services[name] } } };
}

/** One list from entries: every service of each, the envelope (version, time, rate) of the newest. */
function merge(entries: readonly Entry[]): PriceList {
  const newest = entries.reduce((a, b) => (b.fetchedAt > a.fetchedAt ? b : a));
  const services: PriceList["data"]["services"] = {};
  for (const entry of entries) Object.assign(services, entry.list.data.services);
  return { ...newest.list, data: { ...newest.list.data, services } };
}

/** Writes a fetched list into the cache: one entry per service it carries. */
async function remember(deps: PriceDeps, list: PriceList, fetchedAt: number, defaultSet: boolean) {
  const names = servicesOf(list);
  await Promise.all(
    names.map((name) => {
      const ttlMs = ttlOf(list, name);
      const life = Math.max(MIN_TTL_MS, Math.min(ttlMs, periodEndsInMs(list, name, fetchedAt) ?? ttlMs));
      const entry: Entry = { fetchedAt, ttlMs, validUntil: fetchedAt + life, list: onlyService(list, name) };
      return setJson(deps.store, entryKey(name), entry, life);
    }),
  );
  if (defaultSet) await deps.store.set(DEFAULT_SET_KEY, JSON.stringify(names), DAY_MS);
}

/** Fetches running in this process, by store and query: a burst of quotes joins one request. */
const fetching = new WeakMap<Store, Map<string, Promise<PriceList>>>();

function fetchList(deps: PriceDeps, services?: readonly PricingServiceName[]): Promise<PriceList> {
  const key = services === undefined ? "(default)" : [...services].sort().join(",");
  const mine = fetching.get(deps.store) ?? new Map<string, Promise<PriceList>>();
  fetching.set(deps.store, mine);
  const running = mine.get(key);
  if (running) return running;
  const started = (async () => {
    const at = deps.now();
    const list = await deps.service.pricing.get(services === undefined ? undefined : { services });
    await remember(deps, list, at, services === undefined);
    return list;
  })().finally(() => mine.delete(key));
  mine.set(key, started);
  return started;
}

async function refreshBehind(deps: PriceDeps, services: readonly PricingServiceName[]): Promise<void> {
  const lock = `pricing:refresh:${[...services].sort().join(",")}`;
  if (!(await deps.store.setIfNotExists(lock, "1", REFRESH_LOCK_MS))) return;
  try {
    await fetchList(deps, services);
  } catch (error) {
    deps.logger.warn(
      { err: error },
      "price list refresh failed; the cached copy stays in use until it expires",
    );
  } finally {
    await deps.store.del(lock).catch(() => {});
  }
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * The last entry decoded, by its stored text: checking a whole price list with zod costs about a
 * millisecond, and every quote reads the same text until the list is renewed.
 */
const decoded = new WeakMap<Store, Map<string, { raw: string; entry: Entry }>>();

function decode(deps: PriceDeps, key: string, raw: string | null): Entry | null {
  if (raw === null) return null;
  const mine = decoded.get(deps.store) ?? new Map<string, { raw: string; entry: Entry }>();
  decoded.set(deps.store, mine);
  const last = mine.get(key);
  if (last?.raw === raw) return last.entry;
  const result = entrySchema.safeParse(parseJson(raw));
  if (!result.success) {
    deps.logger.warn({ key }, "cached price list unreadable; fetching a fresh one");
    return null;
  }
  mine.set(key, { raw, entry: result.data });
  return result.data;
}

/** The cached entries of `names` still valid at `now`, or undefined when one is missing. */
async function readEntries(
  deps: PriceDeps,
  names: readonly PricingServiceName[],
  now: number,
  reads: StoreReads = deps.store,
): Promise<Entry[] | undefined> {
  const raws = await reads.getMany(names.map(entryKey));
  const entries: Entry[] = [];
  for (const [i, name] of names.entries()) {
    const entry = decode(deps, entryKey(name), raws[i] ?? null);
    if (entry === null || now >= entry.validUntil || now < entry.fetchedAt) return undefined;
    entries.push(entry);
  }
  return entries;
}

const halfSpent = (entry: Entry, now: number): boolean =>
  now - entry.fetchedAt >= (entry.validUntil - entry.fetchedAt) * REFRESH_AFTER_SHARE;

/**
 * The price list for quotes and `prices`, from the cache while it is valid. `services` omitted:
 * the service's default list (every service but the opt-in ones). `reads`: where the cache is read
 * (a quote's read ahead, src/store/read-ahead.ts); a fetch always goes through the store.
 */
export async function getPriceList(
  deps: PriceDeps,
  services?: readonly PricingServiceName[],
  reads: StoreReads = deps.store,
): Promise<PriceList> {
  const now = deps.now();
  const names = services ?? (await defaultNames(reads));
  if (names === undefined || names.length === 0) return fetchList(deps, services);
  const entries = await readEntries(deps, names, now, reads);
  if (entries === undefined) return fetchList(deps, services);
  const stale = entries.filter((e) => halfSpent(e, now)).flatMap((e) => servicesOf(e.list));
  if (stale.length > 0) void refreshBehind(deps, services === undefined ? stale : names);
  return merge(entries);
}

async function defaultNames(reads: StoreReads): Promise<PricingServiceName[] | undefined> {
  const raw = await reads.get(DEFAULT_SET_KEY);
  const names = raw === null ? undefined : parseJson(raw);
  return Array.isArray(names) ? (names as PricingServiceName[]) : undefined;
}

export type LivePriceList =
  | { ok: true; list: PriceList; live: true }
  | { ok: true; list: PriceList; live: false; ageMs: number; error: unknown }
  | { ok: false; error: unknown };

/**
 * The price list read from the service now (one call, bounded by `timeoutMs`), written into the
 * cache like any fetch. Only when the service cannot answer in time (a timeout, a connection
 * that failed) is a cached copy used, and only one younger than its `cache_ttl` whose period has
 * not ended; otherwise (an error answer included) `ok: false`.
 */
export async function readLivePriceList(
  deps: PriceDeps,
  services: readonly PricingServiceName[],
  timeoutMs: number,
): Promise<LivePriceList> {
  const at = deps.now();
  try {
    const list = await deps.service.pricing.get({ services, timeoutMs });
    await remember(deps, list, at, false).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "the live price list could not be cached");
    });
    return { ok: true, list, live: true };
  } catch (error) {
    // An answer (an error status) is not "no answer in time": only then may a cached copy decide.
    if (!unanswered(error)) return { ok: false, error };
    const now = deps.now();
    const entries = await readEntries(deps, services, now).catch(() => undefined);
    const young = entries?.every((e) => now - e.fetchedAt < e.ttlMs) === true;
    if (!entries || !young) return { ok: false, error };
    const oldest = Math.min(...entries.map((e) => e.fetchedAt));
    return { ok: true, list: merge(entries), live: false, ageMs: now - oldest, error };
  }
}

/** No answer in time: a timeout or a connection that failed. */
const unanswered = (error: unknown): boolean =>
  isServiceError(error) && (error.kind === "timeout" || error.kind === "network");
