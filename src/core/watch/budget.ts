import type { Store } from "../../store/store.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";

/**
 * The monthly budget of scheduled re-screens (OPS_WATCH_BUDGET_TRX), counted in SUN per UTC month
 * in the store, so every instance spends from one budget.
 */
/** A month's counter outlives the month, so `watch list` can still show it on the 1st. */
const BUDGET_TTL_MS = 40 * 24 * 3_600_000;

export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
const USED_KEY = (month: string) => `watch:budget:${month}`;
const TOLD_KEY = (month: string) => `watch:budget-told:${month}`;

export const toSun = (trx: string): number => trxToSun(trx).toNumber();
export { sunToTrx };

export async function budgetUsedSun(store: Store, now: number): Promise<number> {
  return Number((await store.get(USED_KEY(monthOf(now)))) ?? "0");
}

export async function addBudgetUse(store: Store, now: number, trx: string): Promise<void> {
  const sun = toSun(trx);
  if (sun > 0) await store.incrBy(USED_KEY(monthOf(now)), sun, BUDGET_TTL_MS);
}

/** True once per month: the first caller tells the alert channel that the budget is used up. */
export const claimBudgetNotice = (store: Store, now: number): Promise<boolean> =>
  store.setIfNotExists(TOLD_KEY(monthOf(now)), "1", BUDGET_TTL_MS);
