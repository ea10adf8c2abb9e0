import Big from "big.js";
import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { readSince } from "../ledger/ledger.js";
import { spendsOf } from "../ledger/spends.js";

/**
 * The spend rate in TRX per hour, the larger of two views:
 * - the bot's own spends of the last 24 hours (energy, orchestrator, Host Mode cycles, screenings),
 *   divided by 24;
 * - the service's `total_trx_spent` growth over the samples the runway kept (up to 24 hours, at
 *   least MIN_WINDOW_MS of them), which also counts what was spent outside the bot.
 */
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
/** A shorter window says too little: one order would look like a huge rate. */
const MIN_WINDOW_MS = 30 * 60_000;
const SAMPLES_KEY = "runway:spent-samples";
const MAX_SAMPLES = 2_000;

/** `balanceTrx`: the balance of the same reading (`chart balance` draws them); absent in older samples. */
const samplesSchema = z.array(
  z.object({ at: z.number(), spentTrx: z.string(), balanceTrx: z.string().optional() }),
);
type Samples = z.infer<typeof samplesSchema>;

export interface SpendRate {
  trxPerHour: Big;
  botLast24hTrx: Big;
  /** The service's view, when enough samples were kept. */
  service?: { spentTrx: Big; windowMs: number };
}

/** Keeps one `total_trx_spent` sample (one per read), dropping those older than a day. */
export async function keepSample(
  store: Store,
  at: number,
  spentTrx: string,
  balanceTrx?: string,
): Promise<Samples> {
  const samples = (await getJson(store, SAMPLES_KEY, samplesSchema)) ?? [];
  const last = samples.at(-1);
  const kept = samples.filter((s) => s.at > at - DAY_MS && s.at < at);
  if (!last || last.at !== at) kept.push({ at, spentTrx, ...(balanceTrx !== undefined && { balanceTrx }) });
  const trimmed = kept.slice(-MAX_SAMPLES);
  await setJson(store, SAMPLES_KEY, trimmed, 2 * DAY_MS);
  return trimmed;
}

export async function readSamples(store: Store): Promise<Samples> {
  return (await getJson(store, SAMPLES_KEY, samplesSchema)) ?? [];
}

/** What the bot spent in the 24 hours before `now`, from the spend ledger. */
export async function botSpentLast24h(deps: Pick<CoreDeps, "store">, now: number): Promise<Big> {
  const recent = await readSince(deps.store, now, DAY_MS);
  return spendsOf(recent).reduce((sum, s) => sum.plus(s.trx), new Big(0));
}

export function rateOf(botLast24hTrx: Big, samples: Samples): SpendRate {
  const botRate = botLast24hTrx.div(24);
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.at - first.at < MIN_WINDOW_MS) return { trxPerHour: botRate, botLast24hTrx };
  const spent = new Big(last.spentTrx).minus(first.spentTrx);
  const windowMs = last.at - first.at;
  const serviceRate = spent.lt(0) ? new Big(0) : spent.times(HOUR_MS).div(windowMs);
  return {
    trxPerHour: serviceRate.gt(botRate) ? serviceRate : botRate,
    botLast24hTrx,
    service: { spentTrx: spent, windowMs },
  };
}

/** Hours the balance lasts at `rate`; undefined when nothing is being spent. */
export function hoursLeft(balanceTrx: string, rate: SpendRate): Big | undefined {
  if (rate.trxPerHour.lte(0)) return undefined;
  return new Big(balanceTrx).div(rate.trxPerHour);
}
