import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import { sunToTrx } from "../pricing/trx.js";
import { ledgerEntryOf } from "./ledger.js";
import { confirmationEntryId } from "./record.js";

/**
 * What became of a confirmation's spend, by its id: the ledger entry when the outcome is known
 * (ordered at what was charged, failed, refused), else the orders the service accepted and will
 * charge for later (an orchestrator order, a payout run, a Host Mode start: `notePlaced`).
 * Undefined: nothing is known yet (a lost answer; its reconciler records it when it learns it).
 */
const ACCEPTED_TTL_MS = 3 * 24 * 3_600_000;
const acceptedKey = (confirmationId: string): string => `ledger:accepted:${confirmationId}`;
const acceptedSchema = z.object({ orderIds: z.array(z.string()) });

export type PlacedOutcome =
  | { status: "ordered"; orderIds: string[]; paidTrx?: string }
  | { status: "failed" | "refused"; line: string };

/** The service accepted the spend; what it charges is entered in the ledger when it is known. */
export async function notePlaced(
  store: Store,
  confirmationId: string,
  orderIds: readonly string[],
): Promise<void> {
  await setJson(store, acceptedKey(confirmationId), { orderIds: [...orderIds] }, ACCEPTED_TTL_MS);
}

export async function placedOutcome(
  store: Store,
  confirmationId: string,
): Promise<PlacedOutcome | undefined> {
  const entry = await ledgerEntryOf(store, confirmationEntryId(confirmationId));
  if (entry !== undefined) {
    if (entry.result === "ordered")
      return { status: "ordered", orderIds: entry.orderIds, paidTrx: sunToTrx(entry.amountSun) };
    return { status: entry.result, line: entry.detail };
  }
  const accepted = await getJson(store, acceptedKey(confirmationId), acceptedSchema);
  return accepted === null ? undefined : { status: "ordered", orderIds: accepted.orderIds };
}
