import Big from "big.js";
import { z } from "zod";
import { parseReply } from "./decode-error.js";
import type { Transport } from "./transport.js";

/**
 * GET /apiv2/pricing and pure helpers over its data. Periods, tiers, providers and the bandwidth grid
 * are data-driven: the helpers match by value and never assume counts, labels or ids.
 */
const ENDPOINT = "pricing.get";
export const SUN_PER_TRX = 1_000_000;

/** Provider prices may arrive as numbers or strings; they stay decimal strings here. */
const decimalString = z.union([z.number(), z.string()]).transform((value) => String(value));

const energyTierSchema = z.object({
  min_energy: z.number().int(),
  max_energy: z.number().int().nullable(),
  price: z.number(),
  label: z.string(),
});

const energyPeriodSchema = z.object({
  id: z.string(),
  label: z.string(),
  start: z.string(),
  end: z.string(),
  is_current: z.boolean(),
  price: z.number(),
  tiers: z.array(energyTierSchema).nullable(),
});

const serviceBase = {
  unit: z.string(),
  pricing_type: z.string(),
  description: z.string(),
  cache_ttl: z.number(),
};

const periodicServiceSchema = z.object({
  ...serviceBase,
  current_period: z.string(),
  periods: z.array(energyPeriodSchema),
});

const hostServiceSchema = z.object({
  ...serviceBase,
  rates: z
    .object({
      standard_65k: z.number(),
      standard_131k_initial: z.number(),
      frequent_65k: z.number(),
      frequent_131k: z.number(),
    })
    // Rates are data: a rate the spec does not name yet is kept, not dropped.
    .catchall(z.number()),
});

const amlServiceSchema = z.object({
  ...serviceBase,
  providers: z.record(
    z.string(),
    z.object({ price: decimalString, price_trx: decimalString, available: z.boolean() }),
  ),
});

const bandwidthTierSchema = z.object({
  amount_min: z.number().int(),
  amount_max: z.number().int().nullable(),
  periods: z.array(z.object({ id: z.string(), rental_seconds: z.number().int(), price: z.number() })),
});

const bandwidthServiceSchema = z.object({
  ...serviceBase,
  window: z.string(),
  current_day_of_week: z.number().int(),
  tiers: z.array(bandwidthTierSchema),
  windows: z.array(z.object({ label: z.string(), start: z.string(), end: z.string() })),
  schedule: z.array(
    z.object({
      day_of_week: z.number().int(),
      window: z.string(),
      period_start: z.string(),
      period_end: z.string(),
      is_current: z.boolean(),
      tiers: z.array(bandwidthTierSchema),
    }),
  ),
  surcharges: z.object({
    small_order_threshold_units: z.number(),
    small_order_surcharge_trx: decimalString,
    trx_send_surcharge_trx: decimalString,
  }),
  limits: z.object({ min_units: z.number().int(), max_units: z.number().int() }),
});

export const priceListSchema = z.object({
  success: z.boolean(),
  version: z.string(),
  timestamp: z.string(),
  data: z.object({
    trx_rate_usd: decimalString,
    units_meta: z.record(z.string(), z.object({ base: z.string(), multiplier: z.number() })),
    services: z.object({
      energy_1h: periodicServiceSchema.optional(),
      energy_5m: periodicServiceSchema.optional(),
      host: hostServiceSchema.optional(),
      aml: amlServiceSchema.optional(),
      bandwidth: bandwidthServiceSchema.optional(),
    }),
  }),
});

export type PriceList = z.infer<typeof priceListSchema>;
export type PeriodicService = z.infer<typeof periodicServiceSchema>;
export type EnergyPeriod = z.infer<typeof energyPeriodSchema>;
export type HostService = z.infer<typeof hostServiceSchema>;
export type AmlService = z.infer<typeof amlServiceSchema>;
export type BandwidthService = z.infer<typeof bandwidthServiceSchema>;
export type PricingServiceName = keyof PriceList["data"]["services"];
export type PricingFormat = "now" | "compact" | "short" | "short1h" | "count";

export interface PricingQuery {
  /** Subset to fetch; default: everything except bandwidth (opt-in). */
  services?: readonly PricingServiceName[];
  /** How long to wait for the answer (default 10 s): a Confirm's live read is bounded tighter. */
  timeoutMs?: number;
}

/** The period marked current (falling back to `current_period`), or undefined when neither matches. */
export function currentPeriod(service: PeriodicService): EnergyPeriod | undefined {
  return (
    service.periods.find((p) => p.is_current) ?? service.periods.find((p) => p.id === service.current_period)
  );
}

/** SUN per energy unit for `amount` now: the matching tier of the current period, else its price. */
export function energyPriceSun(service: PeriodicService, amount: number): number | undefined {
  const period = currentPeriod(service);
  if (!period) return undefined;
  const tier = period.tiers?.find(
    (t) => amount >= t.min_energy && (t.max_energy === null || amount <= t.max_energy),
  );
  return tier?.price ?? period.price;
}

/** TRX cost = price_sun / 1 000 000 × amount, as an exact decimal string. */
export function costTrx(priceSun: number | string, amount: number | string): string {
  return new Big(priceSun).times(amount).div(SUN_PER_TRX).toString();
}

/** USD for a TRX amount at the list's `trx_rate_usd`, rounded to cents. */
export function usdOf(trx: string, trxRateUsd: string | number): string {
  return new Big(trx).times(trxRateUsd).toFixed(2);
}

/**
 * Bandwidth cost in TRX for `amount` units over rental period `periodId` (e.g. "5m") in the current
 * window: price / 1 000 000 × amount, plus the small-order surcharge below the threshold.
 */
export function bandwidthCostTrx(
  service: BandwidthService,
  amount: number,
  periodId: string,
): string | undefined {
  const tier = service.tiers.find(
    (t) => amount >= t.amount_min && (t.amount_max === null || amount < t.amount_max),
  );
  const period = tier?.periods.find((p) => p.id === periodId);
  if (!period) return undefined;
  const base = new Big(costTrx(period.price, amount));
  const { small_order_threshold_units: threshold, small_order_surcharge_trx: surcharge } = service.surcharges;
  return (amount < threshold ? base.plus(surcharge) : base).toString();
}

export function createPricingApi(transport: Transport) {
  function get(query?: PricingQuery & { format?: undefined }): Promise<PriceList>;
  function get(query: PricingQuery & { format: PricingFormat }): Promise<string>;
  async function get(query: PricingQuery & { format?: PricingFormat } = {}): Promise<PriceList | string> {
    const reply = await transport.send({
      family: "pricing",
      endpoint: ENDPOINT,
      method: "GET",
      path: "/apiv2/pricing",
      query: { services: query.services?.join(",") },
      headers: query.format ? { "x-format": query.format, accept: "text/plain" } : undefined,
      auth: "key+ip",
      timeoutMs: query.timeoutMs ?? 10_000,
      buckets: [],
      resendable: true,
    });
    if (query.format) return reply.body.toString("utf8");
    return parseReply("pricing", ENDPOINT, reply, priceListSchema);
  }
  return { get };
}
