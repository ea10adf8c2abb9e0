import { z } from "zod";
import { type PriceList, type PricingServiceName, priceListSchema } from "../../service/pricing.js";
import type { Store } from "../../store/store.js";
import { setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * The price list, cached in the store for the shortest `cache_ttl` among the services asked for
 * (the service's own advice), so every instance quotes from one copy and a burst of quotes costs
 * one request. A copy past half its `cache_ttl` is replaced in the background (one instance at a
 * time), so a steady stream of quotes never waits for the list; only a quote after a quiet spell
 * longer than `cache_ttl` fetches it first. A cached list may say `is_current` for a period that
 * just ended: at most one `cache_ttl` late, which the service itself accepts.
 */
const MIN_TTL_MS = 1_000;
/** Used when the list names no `cache_ttl` for the services asked for. */
const FALLBACK_TTL_MS = 60_000;
/** Share of `cache_ttl` after which the copy is renewed behind the quotes. */
const REFRESH_AFTER_SHARE = 0.5;
const REFRESH_LOCK_MS = 15_000;

type PriceDeps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

const entrySchema = z.object({ fetchedAt: z.number(), ttlMs: z.number(), list: priceListSchema });

const cacheKey = (services: readonly PricingServiceName[]): string =>
  `pricing:${[...services].sort().join(",")}`;

/** Shortest `cache_ttl` (seconds) of the services asked for, in milliseconds. */
function ttlOf(list: PriceList, services: readonly PricingServiceName[]): number {
  const ttls = services
    .map((name) => list.data.services[name]?.cache_ttl)
    .filter((ttl): ttl is number => typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0);
  if (ttls.length === 0) return FALLBACK_TTL_MS;
  return Math.max(MIN_TTL_MS, Math.min(...ttls) * 1000);
}

/** Fetches running in this process, by store and key: a burst of quotes joins one request. */
const fetching = new WeakMap<Store, Map<string, Promise<PriceList>>>();

function fetchList(deps: PriceDeps, services: readonly PricingServiceName[]): Promise<PriceList> {
  const key = cacheKey(services);
  const mine = fetching.get(deps.store) ?? new Map<string, Promise<PriceList>>();
  fetching.set(deps.store, mine);
  const running = mine.get(key);
  if (running) return running;
  const started = (async () => {
    const list = await deps.service.pricing.get({ services });
    const ttlMs = ttlOf(list, services);
    await setJson(deps.store, key, { fetchedAt: deps.now(), ttlMs, list }, ttlMs);
    return list;
  })().finally(() => mine.delete(key));
  mine.set(key, started);
  return started;
}

async function refreshBehind(deps: PriceDeps, services: readonly PricingServiceName[]): Promise<void> {
  const lock = `${cacheKey(services)}:refresh`;
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

type Entry = z.infer<typeof entrySchema>;

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

async function readEntry(deps: PriceDeps, key: string): Promise<Entry | null> {
  const raw = await deps.store.get(key);
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

export async function getPriceList(
  deps: PriceDeps,
  services: readonly PricingServiceName[],
): Promise<PriceList> {
  const cached = await readEntry(deps, cacheKey(services));
  if (cached === null) return fetchList(deps, services);
  if (deps.now() - cached.fetchedAt >= cached.ttlMs * REFRESH_AFTER_SHARE) {
    void refreshBehind(deps, services);
  }
  return cached.list;
}
