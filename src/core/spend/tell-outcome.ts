import type { CoreDeps } from "../deps.js";
import { actorKey } from "../invocation.js";
import { placedOutcome } from "../ledger/placed.js";
import { type Requester, tell } from "../spend-lifecycle.js";
import type { Confirmed } from "./confirmed.js";

type Deps = CoreDeps;
export type Ref = { spend: string; confirmationId: string; requester?: Requester };

/**
 * Tells the lifecycle hook what became of a confirmation's spend, read from the ledger by its
 * confirmation id (src/core/ledger/placed.ts): `ordered` at what was charged (or accepted, its
 * charge entered later), `failed` or `refused` with the line. Nothing yet: a lost answer, told by
 * its reconciler when it learns it.
 */
export async function tellOutcome(deps: Deps, ref: Ref, who: Confirmed): Promise<void> {
  if (deps.spendLifecycle === undefined) return;
  const placed = await placedOutcome(deps.store, who.confirmationId);
  if (placed === undefined) return;
  if (placed.status !== "ordered") {
    await tell(deps, { ...ref, status: placed.status, line: placed.line });
    return;
  }
  const orderIds = placed.orderIds.length === 0 ? {} : { orderIds: placed.orderIds };
  const paid = placed.paidTrx === undefined ? {} : { paidTrx: placed.paidTrx };
  await tell(deps, { ...ref, status: "ordered", ...paid, confirmedBy: actorKey(who.actor), ...orderIds });
}
