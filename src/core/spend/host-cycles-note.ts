import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { chargedToday } from "../ledger/day-totals.js";
import { sunToTrx } from "../pricing/trx.js";

/** " Host Mode cycles you started count toward it: 12.6 TRX of today's total.", or "" when none today. */
export async function hostCyclesNote(
  deps: Pick<CoreDeps, "store" | "now">,
  actor: Actor | string,
): Promise<string> {
  const who = typeof actor === "string" ? actor : actorKey(actor);
  const { hostCyclesSun } = await chargedToday(deps.store, who, deps.now());
  return hostCyclesSun > 0
    ? ` Host Mode cycles you started count toward it: ${sunToTrx(hostCyclesSun)} TRX of today's total.`
    : "";
}
