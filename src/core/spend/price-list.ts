import { type PriceList, type PricingServiceName, priceListSchema } from "../../service/pricing.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * The price list, cached in the store for the shortest `cache_ttl` among the services asked for
 * (the service's own advice), so every instance quotes from one copy and a burst of quotes costs
 * one request. A cached list may say `is_current` for a period that just ended: at most one
 * `cache_ttl` late, which the service itself accepts.
 */
const MIN_TTL_MS = 1_000;
/** Used when the list names no `cache_ttl` for the services asked for. */
const FALLBACK_TTL_MS = 60_000;

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

export async function getPriceList(
  deps: Pick<CoreDeps, "service" | "store" | "logger">,
  services: readonly PricingServiceName[],
): Promise<PriceList> {
  const key = cacheKey(services);
  const cached = await getJson(deps.store, key, priceListSchema, (k, reason) =>
    deps.logger.warn({ key: k, reason }, "cached price list unreadable; fetching a fresh one"),
  );
  if (cached !== null) return cached;
  const list = await deps.service.pricing.get({ services });
  await setJson(deps.store, key, list, ttlOf(list, services));
  return list;
}
