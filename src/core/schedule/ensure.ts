import type { CoreDeps } from "../deps.js";
import { planNext } from "./occurrences.js";
import { allOrderIds, readOrder, readState } from "./standing-orders.js";

/**
 * The safety net behind the occurrence chain (each run plans the next): every active standing
 * order has its next occurrence planned. Planning is idempotent (the job id is the occurrence), so
 * this runs on every instance, at start and then periodically, and plans nothing twice; it only
 * mends a chain a lost job broke (a run that gave up after errors, a queue that was flushed).
 */
export const ENSURE_EVERY_MS = 10 * 60_000;

export async function ensureStandingOrders(deps: CoreDeps): Promise<number> {
  let planned = 0;
  for (const id of await allOrderIds(deps.store)) {
    const order = await readOrder(deps.store, id);
    if (!order || (await readState(deps.store, id))?.state !== "active") continue;
    if ((await planNext(deps, order)) !== undefined) planned += 1;
  }
  return planned;
}
