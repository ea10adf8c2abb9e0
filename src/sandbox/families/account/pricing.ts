import Big from "big.js";
import type { SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import {
  AML_PROVIDERS,
  currentPeriod,
  ENERGY_1H_PERIODS,
  ENERGY_5M_PERIODS,
  energyUnitPriceSun,
  HOST_RATES,
  type Period,
  periodIsCurrent,
  TRX_RATE_USD,
} from "../../price-book.js";
import { json, type Route, type SandboxReply } from "../../router.js";
import {
  BANDWIDTH_LIMITS,
  BANDWIDTH_SURCHARGES,
  BANDWIDTH_WINDOWS,
  bandwidthTiers,
  currentBandwidthSlot,
} from "./bandwidth-grid.js";
import { authenticate, headerValue, isoTime, isReply } from "./common.js";

/** GET /apiv2/pricing: the price list, computed from the price book at `ctx.now()`. */
const PRICE_LIST_VERSION = "2.3.0";
const DEFAULT_SERVICES = ["energy_1h", "energy_5m", "host", "aml"];
const ALL_SERVICES = [...DEFAULT_SERVICES, "bandwidth"];
const TEXT_FORMATS = new Set(["now", "compact", "short", "short1h", "count"]);

function periodicService(periods: Period[], at: number, description: string) {
  return {
    unit: "sun",
    pricing_type: "periodic",
    description,
    cache_ttl: 60,
    current_period: currentPeriod(periods, at).id,
    periods: periods.map((p) => ({ ...p, is_current: periodIsCurrent(p, at) })),
  };
}

function amlService(account: SandboxAccount) {
  const providers: Record<string, { price: number; price_trx: number; available: boolean }> = {};
  for (const name of account.providers) {
    const provider = AML_PROVIDERS[name];
    if (!provider) continue;
    const priceTrx = new Big(provider.price_usdt).div(TRX_RATE_USD).round(6);
    providers[name] = { price: Number(provider.price_usdt), price_trx: Number(priceTrx), available: true };
  }
  return {
    unit: "usdt",
    pricing_type: "provider_based",
    description: "AML check",
    cache_ttl: 300,
    providers,
  };
}

function bandwidthService(at: number) {
  const slot = currentBandwidthSlot(at);
  const schedule = [1, 2, 3, 4, 5, 6, 7].flatMap((day) =>
    BANDWIDTH_WINDOWS.map((w) => ({
      day_of_week: day,
      window: w.label,
      period_start: w.start,
      period_end: w.end,
      is_current: day === slot.dayOfWeek && w.label === slot.window.label,
      tiers: bandwidthTiers(day, w.label),
    })),
  );
  return {
    unit: "sun_per_unit",
    pricing_type: "tiered_by_amount_and_period",
    description: "Bandwidth rental",
    cache_ttl: 60,
    window: slot.window.label,
    current_day_of_week: slot.dayOfWeek,
    tiers: bandwidthTiers(slot.dayOfWeek, slot.window.label),
    windows: BANDWIDTH_WINDOWS,
    schedule,
    surcharges: BANDWIDTH_SURCHARGES,
    limits: BANDWIDTH_LIMITS,
  };
}

function buildService(name: string, account: SandboxAccount, at: number): unknown {
  switch (name) {
    case "energy_1h":
      return periodicService(ENERGY_1H_PERIODS, at, "Energy rental for 1 hour");
    case "energy_5m":
      return periodicService(ENERGY_5M_PERIODS, at, "Energy rental for 5 minutes");
    case "host":
      return {
        unit: "trx",
        pricing_type: "flat_rates",
        description: "Host Mode cycles",
        cache_ttl: 3600,
        rates: HOST_RATES,
      };
    case "aml":
      return amlService(account);
    default:
      return bandwidthService(at);
  }
}

export function priceList(account: SandboxAccount, at: number, requested: string[]) {
  const services: Record<string, unknown> = {};
  for (const name of requested) services[name] = buildService(name, account, at);
  return {
    success: true,
    version: PRICE_LIST_VERSION,
    timestamp: isoTime(at),
    data: {
      trx_rate_usd: TRX_RATE_USD,
      units_meta: {
        sun: { base: "trx", multiplier: 1_000_000 },
        trx: { base: "trx", multiplier: 1 },
        usdt: { base: "usdt", multiplier: 1 },
      },
      services,
    },
  };
}

/** Price of `amount` energy of the current energy_1h period, as TRX and USD strings. */
function quote(amount: number, at: number, orders = 1): { trx: string; usd: string } {
  const trx = new Big(energyUnitPriceSun(ENERGY_1H_PERIODS, amount, at))
    .times(amount)
    .times(orders)
    .div(1_000_000);
  return { trx: trx.toString(), usd: trx.times(TRX_RATE_USD).toFixed(2) };
}

const SIZES: [string, number][] = [
  ["65k", 65_000],
  ["131k", 131_000],
  ["1m", 1_000_000],
];

/** The X-Format text replies: one line, or one line per order count for `count`. */
function priceText(format: string, at: number): string {
  const period = currentPeriod(ENERGY_1H_PERIODS, at);
  const prices = SIZES.map(([label, amount]) => ({ label, ...quote(amount, at) }));
  switch (format) {
    case "compact":
      return `${period.label} ${period.price} ${prices.map((p) => `${p.trx}/${p.usd}`).join(" ")}\n`;
    case "short":
      return `${period.label} ${period.price}sun ${prices.map((p) => `${p.label}=${p.trx}TRX($${p.usd})`).join(" ")}\n`;
    case "short1h":
      return `${prices.map((p) => `${p.label}=${p.trx}TRX($${p.usd})`).join(" ")}\n`;
    case "count":
      return [1, 2, 3, 5, 10, 20]
        .map((n) => {
          const q = quote(65_000, at, n);
          return `${n} x 65k: ${q.trx} TRX $${q.usd}`;
        })
        .join("\n")
        .concat("\n");
    default:
      return `${period.label} | ${period.price} sun | ${prices.map((p) => `${p.label} ${p.trx} TRX $${p.usd}`).join(" | ")}\n`;
  }
}

export function createPricingRoutes(ctx: SandboxContext): Route[] {
  function handler(req: Parameters<Route["handler"]>[0]): SandboxReply {
    const account = authenticate(ctx, req, () =>
      json(401, { detail: "Invalid API key or IP not whitelisted" }),
    );
    if (isReply(account)) return account;
    const at = ctx.now();
    const format = headerValue(req, "x-format")?.trim().toLowerCase();
    if (format && TEXT_FORMATS.has(format)) {
      return {
        status: 200,
        raw: Buffer.from(priceText(format, at)),
        headers: { "content-type": "text/plain; charset=utf-8" },
      };
    }
    const asked = req.query.get("services");
    // Unknown names are ignored: the list is data-driven and clients ask for what they know.
    const requested = asked
      ? ALL_SERVICES.filter((s) =>
          asked
            .split(",")
            .map((x) => x.trim())
            .includes(s),
        )
      : DEFAULT_SERVICES;
    return json(200, priceList(account, at, requested));
  }
  return [{ method: "GET", pattern: "/apiv2/pricing", name: "pricing.get", buckets: [], handler }];
}
