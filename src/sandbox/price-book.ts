import { SUN_PER_TRX } from "./accounts.js";

/**
 * The sandbox's price data, one source for both the price list it serves (GET /apiv2/pricing)
 * and what it charges (order5m, orchestrator, Host Mode, AML). Shapes follow the spec's price list.
 */
interface Tier {
  min_energy: number;
  max_energy: number | null;
  price: number;
  label: string;
}

export interface Period {
  id: string;
  label: string;
  start: string; // HH:MM UTC
  end: string; // HH:MM UTC, may be 24:00 / cross midnight when start > end
  price: number; // SUN per energy unit
  tiers: Tier[] | null;
}

export const TRX_RATE_USD = 0.3;

export const ENERGY_5M_PERIODS: Period[] = [
  {
    id: "night",
    label: "Night 00-06",
    start: "00:00",
    end: "06:00",
    price: 38,
    tiers: [
      { min_energy: 61_000, max_energy: 199_999, price: 40, label: "small" },
      { min_energy: 200_000, max_energy: null, price: 36, label: "bulk" },
    ],
  },
  {
    id: "day",
    label: "Day 06-18",
    start: "06:00",
    end: "18:00",
    price: 45,
    tiers: [
      { min_energy: 61_000, max_energy: 199_999, price: 48, label: "small" },
      { min_energy: 200_000, max_energy: null, price: 43, label: "bulk" },
    ],
  },
  { id: "evening", label: "Evening 18-24", start: "18:00", end: "24:00", price: 42, tiers: null },
];

export const ENERGY_1H_PERIODS: Period[] = [
  { id: "offpeak", label: "Off-peak 20-08", start: "20:00", end: "08:00", price: 55, tiers: null },
  { id: "peak", label: "Peak 08-20", start: "08:00", end: "20:00", price: 65, tiers: null },
];

export const HOST_RATES = {
  standard_65k: 2,
  standard_131k_initial: 4,
  frequent_65k: 2,
  frequent_131k: 4,
} as const;

/** Host Mode cycle charges of the spec, in SUN. */
export const HOST_CYCLE_SUN = {
  first: 4 * SUN_PER_TRX,
  le65k: 2 * SUN_PER_TRX,
  gt65k: 4 * SUN_PER_TRX,
  idle: 4 * SUN_PER_TRX,
};

export const AML_PROVIDERS: Record<
  string,
  { price_usdt: string; networks: string[]; score_scale: { min: number; max: number } }
> = {
  provider_a: {
    price_usdt: "0.98",
    networks: [
      "algo",
      "apt",
      "arb",
      "avax",
      "base",
      "bnb",
      "bsc",
      "btc",
      "tao",
      "ada",
      "celo",
      "atom",
      "cro",
      "doge",
      "dydx",
      "eth",
      "etc",
      "ftm",
      "fil",
      "flr",
      "gnosis",
      "hbar",
      "hype",
      "inj",
      "icp",
      "linea",
      "ltc",
      "mob",
      "near",
      "op",
      "dot",
      "matic",
      "xrp",
      "sei",
      "sol",
      "strk",
      "xlm",
      "sui",
      "xtz",
      "ton",
      "trx",
      "xdc",
      "okb",
      "zil",
      "zksync",
      "bch",
      "zen",
      "zec",
    ],
    score_scale: { min: 0, max: 10 },
  },
  provider_b: { price_usdt: "1.50", networks: ["btc", "eth", "trx"], score_scale: { min: 0, max: 100 } },
};

/** Activation of a never-used address, added to an order that needed it. */
export const ACTIVATION_SUN = 1_100_000;

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** True when `at` (ms) falls in the period's UTC window; a window with start > end crosses midnight. */
export function periodIsCurrent(period: Pick<Period, "start" | "end">, at: number): boolean {
  const d = new Date(at);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  const start = minutesOf(period.start);
  const end = minutesOf(period.end);
  return start <= end ? minute >= start && minute < end : minute >= start || minute < end;
}

export function currentPeriod(periods: Period[], at: number): Period {
  return periods.find((p) => periodIsCurrent(p, at)) ?? (periods[0] as Period);
}

/** SUN per energy unit for `amount` in the current period (tier price when tiers exist). */
export function energyUnitPriceSun(periods: Period[], amount: number, at: number): number {
  const period = currentPeriod(periods, at);
  const tier = period.tiers?.find(
    (t) => amount >= t.min_energy && (t.max_energy === null || amount <= t.max_energy),
  );
  return tier?.price ?? period.price;
}

/** Whole SUN cost of renting `amount` energy now: price_sun / 1 000 000 * amount TRX. */
export function energyCostSun(periods: Period[], amount: number, at: number): number {
  return energyUnitPriceSun(periods, amount, at) * amount;
}

/** AML check price in SUN at the sandbox's TRX rate (rounded to whole SUN). */
export function amlPriceSun(provider: string): number {
  const usdt = Number(AML_PROVIDERS[provider]?.price_usdt ?? "0");
  return Math.round((usdt / TRX_RATE_USD) * SUN_PER_TRX);
}

/**
 * Sandbox control: the price list changes while the service runs. Every energy price (periods and
 * tiers, 5-minute and 1-hour) rises by `sun` per unit, for what the list shows and what orders
 * charge alike. Process-wide (the book is shared); returns the undo.
 */
export function raiseEnergyPrices(sun: number): () => void {
  const periods = [...ENERGY_5M_PERIODS, ...ENERGY_1H_PERIODS];
  const shift = (by: number) => {
    for (const period of periods) {
      period.price += by;
      for (const tier of period.tiers ?? []) tier.price += by;
    }
  };
  shift(sun);
  let undone = false;
  return () => {
    if (!undone) shift(-sun);
    undone = true;
  };
}
