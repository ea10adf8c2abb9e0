import Big from "big.js";
import {
  costTrx,
  currentPeriod,
  energyPriceSun,
  type HostService,
  type PeriodicService,
  type PriceList,
  usdOf,
} from "../../service/pricing.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import { ORDER5M_MAX_ENERGY } from "../parse/amount.js";
import { getPriceList } from "./price-list.js";

/**
 * Quotes from the live price list: the current period and the tier that matches the amount, as
 * the service publishes them (nothing hard-coded). Costs are exact decimal strings (big.js).
 */

/** The orchestrator splits amounts above this into even chunks, each its own energy order. */
const ORCHESTRATOR_CHUNK_MAX = 1_000_000;
/** The spec: from this amount the final price may exceed the quote when a provider declines. */
const REROUTE_NOTE_FROM = 300_000;

/**
 * Which price list service prices a route. order5m rents for 5 minutes from internal pools; the
 * orchestrator's energy orders are 1-hour rentals (internal pools plus external providers, whose
 * hashes arrive late), so its chunks are priced from energy_1h.
 */
export const ROUTE_SERVICE = { order5m: "energy_5m", orchestrator: "energy_1h" } as const;
export type EnergyRoute = keyof typeof ROUTE_SERVICE;

interface ChunkQuote {
  /** Energy of each chunk of this size. */
  amount: number;
  /** How many chunks have this size (even chunks differ by at most one unit). */
  count: number;
  priceSun: number;
  /** Cost of one chunk. */
  costTrx: string;
}

export interface EnergyQuote {
  address: string;
  amount: number;
  route: EnergyRoute;
  service: (typeof ROUTE_SERVICE)[EnergyRoute];
  periodLabel: string;
  /** SUN per energy unit of the (first) order. */
  unitPriceSun: number;
  chunks: ChunkQuote[];
  costTrx: string;
  /** The cost in USD at the list's rate, to cents. */
  costUsd: string;
  /** The spec's warning for orders of 300,000 energy and above. */
  mayCostMore: boolean;
}

export const routeFor = (amount: number): EnergyRoute =>
  amount <= ORDER5M_MAX_ENERGY ? "order5m" : "orchestrator";

/** The orchestrator's split: one order up to 1,000,000, else ceil(amount / 1,000,000) even chunks. */
export function chunkSizes(amount: number): { amount: number; count: number }[] {
  const parts = amount > ORCHESTRATOR_CHUNK_MAX ? Math.ceil(amount / ORCHESTRATOR_CHUNK_MAX) : 1;
  const base = Math.floor(amount / parts);
  const larger = amount % parts;
  const sizes = [
    { amount: base + 1, count: larger },
    { amount: base, count: parts - larger },
  ];
  return sizes.filter((s) => s.count > 0);
}

function periodicService(list: PriceList, name: EnergyQuote["service"]): PeriodicService {
  const service = list.data.services[name];
  if (!service)
    throw new UserError(
      `The price list has no ${name} prices right now; try again later. Nothing was ordered.`,
    );
  return service;
}

function priceOf(service: PeriodicService, name: string, amount: number): number {
  const price = energyPriceSun(service, amount);
  if (price === undefined) {
    throw new UserError(
      `The price list names no current ${name} period; try again in a minute. Nothing was ordered.`,
    );
  }
  return price;
}

export function buildEnergyQuote(list: PriceList, address: string, amount: number): EnergyQuote {
  const route = routeFor(amount);
  const name = ROUTE_SERVICE[route];
  const service = periodicService(list, name);
  const period = currentPeriod(service);
  const sizes = route === "order5m" ? [{ amount, count: 1 }] : chunkSizes(amount);
  const chunks = sizes.map((s) => {
    const priceSun = priceOf(service, name, s.amount);
    return { ...s, priceSun, costTrx: costTrx(priceSun, s.amount) };
  });
  const total = chunks.reduce((sum, c) => sum.plus(new Big(c.costTrx).times(c.count)), new Big(0));
  return {
    address,
    amount,
    route,
    service: name,
    periodLabel: period?.label ?? service.current_period,
    unitPriceSun: chunks[0]?.priceSun ?? 0,
    chunks,
    costTrx: total.toFixed(),
    costUsd: usdOf(total.toFixed(), list.data.trx_rate_usd),
    mayCostMore: amount >= REROUTE_NOTE_FROM,
  };
}

/** The price list service an energy quote of `amount` is priced from. */
export const energyServiceFor = (amount: number): EnergyQuote["service"] => ROUTE_SERVICE[routeFor(amount)];

/** `reads`: where the cached price list is read (see getPriceList). */
export async function quoteEnergy(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
  address: string,
  amount: number,
  reads?: StoreReads,
): Promise<EnergyQuote> {
  const list = await getPriceList(deps, [energyServiceFor(amount)], reads);
  return buildEnergyQuote(list, address, amount);
}

/**
 * Host Mode cycle prices. The spec's rules: the first delegation of an activation and an idle
 * re-delegation cost the initial rate; each next one the 65k rate when the previous transfer used
 * at most 65,000 energy, the 131k rate when more. The rates come from the price list.
 */
export interface HostQuote {
  firstCycleTrx: string;
  le65kTrx: string;
  gt65kTrx: string;
  idleTrx: string;
  /** The daily minimum of infinity mode and the day it takes effect (spec; not in the price list). */
  dailyMinimumTrx: string;
  dailyMinimumFrom: string;
  dailyMinimumInForce: boolean;
}

const HOST_DAILY_MINIMUM_TRX = "8";
const HOST_DAILY_MINIMUM_FROM = "2026-08-29";

export function buildHostQuote(service: HostService, now: number): HostQuote {
  const { rates } = service;
  const trx = (n: number) => new Big(n).toFixed();
  return {
    firstCycleTrx: trx(rates.standard_131k_initial),
    le65kTrx: trx(rates.standard_65k),
    gt65kTrx: trx(rates.frequent_131k),
    idleTrx: trx(rates.standard_131k_initial),
    dailyMinimumTrx: HOST_DAILY_MINIMUM_TRX,
    dailyMinimumFrom: HOST_DAILY_MINIMUM_FROM,
    dailyMinimumInForce: now >= Date.parse(`${HOST_DAILY_MINIMUM_FROM}T00:00:00Z`),
  };
}

export async function quoteHost(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
  reads?: StoreReads,
): Promise<HostQuote> {
  const list = await getPriceList(deps, ["host"], reads);
  const service = list.data.services.host;
  if (!service)
    throw new UserError(
      "The price list has no Host Mode rates right now; try again later. Nothing was started.",
    );
  return buildHostQuote(service, deps.now());
}
