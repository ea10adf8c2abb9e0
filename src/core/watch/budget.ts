import type { Store } from "../../store/store.js";
import { monthChargedSun } from "../ledger/ledger.js";

/**
 * The monthly budget of scheduled re-screens (OPS_WATCH_BUDGET_TRX): what they were charged this
 * UTC month is the ledger's month total of `rescreen` entries (written in the step that appends
 * each), so every instance spends from one budget and it always agrees with the ledger.
 */
/** The notice's mark outlives the month, so it is told once per month. */
const TOLD_TTL_MS = 40 * 24 * 3_600_000;

export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
const TOLD_KEY = (month: string) => `watch:budget-told:${month}`;

export const budgetUsedSun = (store: Store, now: number): Promise<number> =>
  monthChargedSun(store, "rescreen", now);

/** True once per month: the first caller tells the alert channel that the budget is used up. */
export const claimBudgetNotice = (store: Store, now: number): Promise<boolean> =>
  store.setIfNotExists(TOLD_KEY(monthOf(now)), "1", TOLD_TTL_MS);
