import Big from "big.js";
import type { Clock } from "../../clock.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { Store } from "../../store/store.js";
import { type Actor, actorKey } from "../invocation.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";
import { hostCyclesNote } from "./host-cycles-note.js";

export { sunToTrx, trxToSun };

/**
 * Spending caps: OPS_MAX_ORDER_TRX per order and OPS_DAILY_LIMIT_TRX per user per UTC day.
 * Totals are integer SUN in the store (atomic INCRBY); TRX strings are converted with big.js,
 * so no float ever touches money.
 */
/** A day key lives past its UTC day (clock skew between instances, late recordings). */
export const SPEND_TTL_MS = 48 * 60 * 60_000;

export interface SpendSettings {
  maxOrderTrx?: string;
  dailyLimitTrx?: string;
}

export type SpendCheck = { ok: true } | { ok: false; line: string };

const keyOf = (actor: Actor | string): string => (typeof actor === "string" ? actor : actorKey(actor));

/** `spend:<actorKey>:<YYYY-MM-DD>` of the UTC day of `at`. */
export const spendKey = (actor: Actor | string, at: number): string =>
  `spend:${keyOf(actor)}:${new Date(at).toISOString().slice(0, 10)}`;

/** Integer SUN the actor has recorded today (UTC). */
export async function spentTodaySun(
  store: Pick<StoreReads, "get">,
  actor: Actor | string,
  now: Clock,
): Promise<Big> {
  const raw = await store.get(spendKey(actor, now()));
  return new Big(raw ?? "0");
}

export interface CheckSpendInput {
  store: Store;
  actor: Actor | string;
  /** The quote in TRX, as a decimal string. */
  quoteTrx: string;
  settings: SpendSettings;
  now: Clock;
  /** Where today's total is read (a quote's read ahead); default `store`. */
  reads?: StoreReads;
}

/** Ok, or the one line that says which cap the quote breaks and, for the daily one, what is left today. */
export async function checkSpend(input: CheckSpendInput): Promise<SpendCheck> {
  const { settings } = input;
  const quote = trxToSun(input.quoteTrx);
  const perOrder = perOrderRefusal(quote, settings);
  if (perOrder !== undefined) return { ok: false, line: perOrder };
  if (settings.dailyLimitTrx === undefined) return { ok: true };
  const limit = trxToSun(settings.dailyLimitTrx);
  const spent = await spentTodaySun(input.reads ?? input.store, input.actor, input.now);
  if (spent.plus(quote).lte(limit)) return { ok: true };
  const cycles = await hostCyclesNote({ store: input.store, now: input.now }, input.actor);
  return { ok: false, line: `${dailyRefusal(quote, spent, settings.dailyLimitTrx)}${cycles}` };
}

/** The line of a quote above OPS_MAX_ORDER_TRX, or undefined when it is within. */
export function perOrderRefusal(quoteSun: Big, settings: SpendSettings): string | undefined {
  if (settings.maxOrderTrx === undefined || quoteSun.lte(trxToSun(settings.maxOrderTrx))) return undefined;
  return `This order would cost ${sunToTrx(quoteSun)} TRX, above the cap of ${settings.maxOrderTrx} TRX per order (OPS_MAX_ORDER_TRX).`;
}

/** The line of a quote that does not fit what is left of the day (`spentSun` counted so far). */
export function dailyRefusal(quoteSun: Big, spentSun: Big, dailyLimitTrx: string): string {
  const left = trxToSun(dailyLimitTrx).minus(spentSun);
  const daily = `your daily limit of ${dailyLimitTrx} TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC)`;
  const shown = sunToTrx(quoteSun);
  return left.lte(0)
    ? `You have used ${daily}; this order would cost ${shown} TRX.`
    : `This order would cost ${shown} TRX, but only ${sunToTrx(left)} TRX is left today of ${daily}.`;
}
