import Big from "big.js";
import type { CoreDeps } from "../deps.js";
import { agentBudgetRefusal, agentDayKey } from "../spend/reservation.js";
import { perOrderRefusal, trxToSun } from "../spend/spend-guard.js";

/**
 * An agent's request against the caps before anything is posted: OPS_MAX_ORDER_TRX, and its own
 * daily budget (OPS_AGENT_TOKENS' fourth field): what its confirmed requests were charged today
 * (settled from the ledger) plus what is held for those confirmed and not charged yet. Requests
 * still awaiting a Confirm hold nothing; the Confirm decides again against the same budget.
 * The confirming person's own daily cap is decided at their Confirm.
 */
export async function agentBudgetCheck(
  deps: Pick<CoreDeps, "store" | "now" | "settings">,
  agent: string,
  quoteTrx: string,
): Promise<string | undefined> {
  const quoteSun = trxToSun(quoteTrx);
  const perOrder = perOrderRefusal(quoteSun, deps.settings);
  if (perOrder !== undefined) return perOrder;
  const dailyTrx = deps.settings.agentDailyTrx[agent];
  if (dailyTrx === undefined) return undefined;
  const spent = new Big((await deps.store.get(agentDayKey(agent, deps.now()))) ?? "0");
  if (spent.plus(quoteSun).lte(trxToSun(dailyTrx))) return undefined;
  return agentBudgetRefusal(quoteSun, spent, { name: agent, dailyTrx });
}
