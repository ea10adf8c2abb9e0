import Big from "big.js";
import type { CoreDeps } from "../deps.js";
import type { Actor } from "../invocation.js";
import type { LedgerEntry } from "../ledger/entry.js";
import { monthChargedSun } from "../ledger/ledger.js";
import { recordSpend, type SpendRecord } from "../ledger/record.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";
import { capRefusal } from "./check-at-quote.js";
import type { ChargeDefinition } from "./definition.js";

/**
 * The pipeline's part of a spend no Confirm decides (a `ChargeDefinition`): the check before it is
 * asked for, and its record. A person's command charged at once (a paid screening) is held to that
 * person's caps; an automatic one with a monthly budget (a re-screen) to that budget, read from the
 * ledger's month total of its kind (written in the step that appends each charge); one the service
 * charges by itself (a Host Mode cycle) is never refused, it counts toward its starter's day.
 */
type Deps = CoreDeps;

export type ChargeCheck =
  | { ok: true }
  | {
      ok: false;
      line: string;
      /** A monthly budget's refusal: what was charged this month, and the budget (TRX). */
      budget?: { usedTrx: string; budgetTrx: string };
    };

export interface ChargeAsk {
  /** Whose caps (a person's command). */
  actor: Actor | string;
  /** Its list price in TRX; null when unknown right now. */
  priceTrx: string | null;
  /** The line when the price is unknown and a cap is set (no check without it). */
  unknownPrice?: string;
}

export async function checkCharge(deps: Deps, def: ChargeDefinition, ask: ChargeAsk): Promise<ChargeCheck> {
  if (def.trigger === "service") return { ok: true };
  const budgetTrx = def.monthBudgetTrx?.(deps.settings);
  if (def.monthBudgetTrx !== undefined) {
    if (budgetTrx === undefined) return { ok: true };
    const used = await monthChargedSun(deps.store, def.ledgerKind, deps.now());
    const price = trxToSun(ask.priceTrx ?? "0");
    if (price.plus(used).lte(trxToSun(budgetTrx))) return { ok: true };
    const usedTrx = sunToTrx(new Big(used));
    return {
      ok: false,
      line: `${def.noun} would cost ${sunToTrx(price)} TRX, but ${usedTrx} of the month's ${budgetTrx} TRX is used.`,
      budget: { usedTrx, budgetTrx },
    };
  }
  const { maxOrderTrx, dailyLimitTrx } = deps.settings;
  if (maxOrderTrx === undefined && dailyLimitTrx === undefined) return { ok: true };
  if (ask.priceTrx === null) {
    const line =
      ask.unknownPrice ??
      `The price of this is unknown right now, so the spending caps cannot be checked; try again later.`;
    return { ok: false, line };
  }
  const line = await capRefusal(deps, ask.actor, ask.priceTrx, def.noun);
  return line === undefined ? { ok: true } : { ok: false, line };
}

/**
 * Its outcome in the ledger (the one writer, ledger/record.ts): counted toward `cap` (the day of
 * whom it is charged to, settling a hold) unless it spends from a monthly budget of its own.
 */
export function recordCharge(
  deps: Deps,
  def: ChargeDefinition,
  record: Omit<SpendRecord, "kind">,
): Promise<LedgerEntry | undefined> {
  const { cap, ...rest } = record;
  const counted = def.monthBudgetTrx === undefined && cap !== undefined;
  return recordSpend(deps, { ...rest, kind: def.ledgerKind, ...(counted && { cap }) });
}
