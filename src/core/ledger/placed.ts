import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { sunToTrx } from "../pricing/trx.js";
import { auditSpend, type SpendOutcome } from "../spend/spend-audit.js";
import type { LedgerKind } from "./entry.js";
import { ledgerEntryOf } from "./ledger.js";
import { confirmationEntryId, recordConfirmed } from "./record.js";

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
async function notePlaced(store: Store, confirmationId: string, orderIds: readonly string[]): Promise<void> {
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

/** The audit line's fields of a spend; its result, message and orders are the outcome's. */
type AuditFields = Omit<SpendOutcome, "result" | "message" | "orderIds">;

/**
 * What placing a confirmed spend came to (a definition's `place` answers it beside its reply), for
 * the pipeline to enter through `recordPlaced`:
 * - `ordered` / `failed`: known now, at what the service charged (`0` for a failure);
 * - `accepted`: the service took it and charges later (an orchestrator order, a payout run): its
 *   tracking job enters the charge when it is final, through the same writer;
 * - `pending`: the answer was lost; its reconciler enters the outcome when it learns it.
 */
export type PlaceResult =
  | KnownOutcome
  | { result: "accepted"; orderIds: readonly string[]; detail: string; audit: AuditFields }
  | { result: "pending" };

/** An outcome known at once: ordered at what the service charged, or failed at 0. */
export interface KnownOutcome {
  result: "ordered" | "failed";
  chargedTrx: string;
  orderIds: readonly string[];
  detail: string;
  audit: AuditFields;
  energy?: number;
  addresses?: number;
  /** False: the hold is not settled by this entry (a Host Mode start's first cycle settles it). */
  holds?: boolean;
}

type Deps = Pick<CoreDeps, "store" | "now" | "settings" | "logger" | "observer">;

/** Enters what a confirmation's placing came to: the ledger entry (once), or the accepted orders. */
export async function recordPlaced(
  deps: Deps,
  at: { kind: LedgerKind; confirmationId: string },
  placed: PlaceResult,
): Promise<void> {
  if (placed.result === "pending") return;
  const orderIds = placed.orderIds.length > 0 ? { orderIds: [...placed.orderIds] } : {};
  if (placed.result === "accepted") {
    await notePlaced(deps.store, at.confirmationId, placed.orderIds);
    await auditSpend(deps, { ...placed.audit, result: "ok", message: placed.detail, ...orderIds });
    return;
  }
  await recordConfirmed(deps, {
    kind: at.kind,
    confirmationId: at.confirmationId,
    chargedTrx: placed.chargedTrx,
    result: placed.result,
    audit: {
      ...placed.audit,
      result: placed.result === "ordered" ? "ok" : "failed",
      message: placed.detail,
      ...orderIds,
    },
    ...(placed.energy !== undefined && { energy: placed.energy }),
    ...(placed.addresses !== undefined && { addresses: placed.addresses }),
    ...(placed.holds !== undefined && { holds: placed.holds }),
  });
}
