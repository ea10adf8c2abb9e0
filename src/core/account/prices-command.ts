import { z } from "zod";
import { type PriceList, type PricingServiceName, priceListSchema } from "../../service/pricing.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { closest } from "../parse/closest.js";
import { echo } from "../parse/echo.js";
import { errorReply } from "../reply.js";
import { renderPrices, serviceNames, unknownServiceLine } from "./prices-render.js";

/**
 * `prices [service]`: the price list, read from the service. The list is cached in the store
 * (shared by every instance) for the shortest `cache_ttl` of the services it carries, and never
 * past the end of a current period or window, so the period marked "now" is never a stale one.
 */

/** Opt-in services (the spec: absent from the default list, returned only when asked for by name). */
const OPT_IN_SERVICES: readonly PricingServiceName[] = ["bandwidth"];
const DAY_MS = 86_400_000;
const cacheKey = (services: readonly string[] | undefined): string =>
  `prices:list:${services === undefined ? "default" : services.join(",")}`;
const cachedListSchema = z.object({ fetchedAt: z.number(), expiresAt: z.number(), list: priceListSchema });

/** Milliseconds from `now` to the next `HH:MM` UTC ("24:00" is midnight); undefined when unreadable. */
function msUntilUtc(hhmm: string, now: number): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  if (!match) return undefined;
  const target = (Number(match[1]) * 60 + Number(match[2])) * 60_000;
  const sinceMidnight = ((now % DAY_MS) + DAY_MS) % DAY_MS;
  const diff = (((target - sinceMidnight) % DAY_MS) + DAY_MS) % DAY_MS;
  return diff === 0 ? DAY_MS : diff;
}

/** How long this list stays true: the shortest cache_ttl, cut at the end of any current period or window. */
export function priceListTtlMs(list: PriceList, now: number): number {
  const limits: number[] = [];
  for (const name of serviceNames(list)) {
    const service = list.data.services[name];
    if (!service) continue;
    limits.push(service.cache_ttl * 1000);
    const ends =
      "periods" in service
        ? service.periods.filter((p) => p.is_current).map((p) => p.end)
        : "windows" in service
          ? service.windows.filter((w) => w.label === service.window).map((w) => w.end)
          : [];
    for (const end of ends) {
      const ms = msUntilUtc(end, now);
      if (ms !== undefined) limits.push(ms);
    }
  }
  return limits.length === 0 ? 0 : Math.max(0, Math.min(...limits));
}

/** The price list (`services` omitted: the service's default set), from the cache while it is fresh. */
export async function getPriceList(
  deps: CoreDeps,
  services?: readonly PricingServiceName[],
): Promise<PriceList> {
  const key = cacheKey(services);
  const now = deps.now();
  const cached = await getJson(deps.store, key, cachedListSchema);
  if (cached && now >= cached.fetchedAt && now < cached.expiresAt) return cached.list;
  const list = await deps.service.pricing.get(services === undefined ? undefined : { services });
  const ttlMs = priceListTtlMs(list, now);
  if (ttlMs > 0) await setJson(deps.store, key, { fetchedAt: now, expiresAt: now + ttlMs, list }, ttlMs);
  return list;
}

/** Services a word names: the exact key, or a key with that word as one of its parts ("energy", "5m"). */
function matchServices(word: string, names: readonly PricingServiceName[]): PricingServiceName[] {
  const exact = names.filter((name) => name === word);
  return exact.length > 0 ? exact : names.filter((name) => name.split("_").includes(word));
}

export const pricesCommand: CommandDefinition = {
  verb: "prices",
  role: "viewer",
  summary: "the price list: energy periods and tiers, Host Mode rates, AML providers, bandwidth",
  usage: "prices [service]",
  example: "prices energy_5m",
  async run(ctx) {
    if (ctx.args.length > 1) {
      return errorReply('prices takes at most one service, e.g. "prices energy_5m" or "prices bandwidth"');
    }
    const wanted = ctx.args[0]?.toLowerCase();
    const list = await getPriceList(ctx.deps);
    const names = serviceNames(list);
    if (wanted === undefined) return renderPrices(list, names);
    const matched = matchServices(wanted, names);
    if (matched.length > 0) return renderPrices(list, matched);
    const optIn = OPT_IN_SERVICES.find((name) => name === wanted);
    if (optIn !== undefined) {
      const extra = await getPriceList(ctx.deps, [optIn]);
      if (extra.data.services[optIn]) return renderPrices(extra, [optIn]);
      return errorReply(`${optIn} prices are not available to this account: access is by request`);
    }
    const known = [...names, ...OPT_IN_SERVICES.filter((name) => !names.includes(name))];
    return errorReply(unknownServiceLine(echo(ctx.args[0] ?? ""), known, closest(wanted, known)));
  },
};
