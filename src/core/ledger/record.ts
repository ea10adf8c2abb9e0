import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";
import { releaseSpend, settleSpend } from "../spend/reservation.js";
import { auditSpend, type SpendOutcome } from "../spend/spend-audit.js";
import type { LedgerEntry, LedgerKind, LedgerResult } from "./entry.js";
import { appendToLedger } from "./ledger.js";

/**
 * The one place a spend's outcome is recorded: the ledger entry (once per id, whichever instance,
 * retry or reconciler gets here first), then the caps — the confirmation's hold settled at what
 * the entry says was charged, or given back when nothing was — and the audit line beside it.
 * Every writer of money calls this and nothing else; holds are settled or released only here.
 */
type Deps = Pick<CoreDeps, "store" | "now" | "settings" | "logger" | "observer">;

export interface SpendRecord {
  /** Once per id: `c:<confirmation>` for a Confirm's outcome, the service's ids for the rest. */
  id: string;
  kind: LedgerKind;
  actor: string;
  requester: string;
  address?: string;
  /** What the service charged (TRX decimal string); `0` when nothing was. */
  chargedTrx: string;
  result: LedgerResult;
  orderIds?: readonly string[];
  confirmationId?: string;
  detail: string;
  energy?: number;
  addresses?: number;
  /**
   * The daily total it counts toward: the confirmation's hold (settled at the charge, or released
   * when nothing was charged), else the charge added to `actor`'s day. Absent: no cap involved.
   */
  cap?: { actor: Actor | string; holdId?: string };
  /** The audit line written beside the entry (the audit log of actions). */
  audit?: SpendOutcome;
}

/** `c:<confirmation id>`: the ledger id of a Confirm's one outcome. */
export const confirmationEntryId = (confirmationId: string): string => `c:${confirmationId}`;

export async function recordSpend(deps: Deps, record: SpendRecord): Promise<LedgerEntry | undefined> {
  let written: { entry: LedgerEntry; appended: boolean };
  try {
    written = await appendToLedger(deps, record.id, {
      kind: record.kind,
      actor: record.actor,
      requester: record.requester,
      address: record.address ?? "",
      amountSun: trxToSun(record.chargedTrx).toNumber(),
      result: record.result,
      orderIds: [...(record.orderIds ?? [])],
      confirmationId: record.confirmationId ?? "",
      detail: record.detail,
      ...(record.energy !== undefined && { energy: record.energy }),
      ...(record.addresses !== undefined && { addresses: record.addresses }),
    });
  } catch (error) {
    // The outcome already happened; the hold stays (errs toward the cap) and the log says why.
    deps.logger.error(
      { err: error, ledgerId: record.id, kind: record.kind },
      "could not write the ledger entry",
    );
    return undefined;
  }
  const { entry } = written;
  if (record.cap) await settleCap(deps, record.cap, record.id, entry);
  if (written.appended && record.audit) await auditSpend(deps, record.audit);
  return entry;
}

async function settleCap(
  deps: Deps,
  cap: NonNullable<SpendRecord["cap"]>,
  id: string,
  entry: LedgerEntry,
): Promise<void> {
  try {
    if (entry.result === "ordered") {
      await settleSpend(deps, cap.holdId ?? `ledger:${id}`, cap.actor, sunToTrx(entry.amountSun));
    } else if (cap.holdId !== undefined) {
      await releaseSpend(deps, cap.holdId);
    }
  } catch (error) {
    deps.logger.error({ err: error, ledgerId: id }, "ledger entry written, but its cap was not settled");
  }
}

/**
 * Who a ledger entry names, from an outcome's audit fields: a standing order's run is the order's
 * (`schedule:<id>`, asked by its creator); an agent's request is the confirming person's, asked by
 * `agent:<name>`; anything else is the person's own.
 */
function partiesOf(outcome: Pick<SpendOutcome, "actor" | "schedule" | "requester">): {
  actor: string;
  requester: string;
} {
  const person = typeof outcome.actor === "string" ? outcome.actor : actorKey(outcome.actor);
  if (outcome.schedule !== undefined) return { actor: `schedule:${outcome.schedule}`, requester: person };
  return { actor: person, requester: outcome.requester ?? person };
}

export interface ConfirmedOutcome {
  kind: LedgerKind;
  confirmationId: string;
  /** `0` for a failure. */
  chargedTrx: string;
  /** The audit line; its actor, address, orders, schedule and requester name the entry's. */
  audit: SpendOutcome;
  /** Default: `ordered` for an `ok` audit result, `failed` otherwise. */
  result?: LedgerResult;
  /** Default: the audit line's message. */
  detail?: string;
  energy?: number;
  addresses?: number;
  /** Default true: the confirmation's hold is settled or released. */
  holds?: boolean;
}

/** The outcome of one Confirm (a person's, an approval's, a standing order's run, an agent's request). */
export function recordConfirmed(deps: Deps, o: ConfirmedOutcome): Promise<LedgerEntry | undefined> {
  const parties = partiesOf(o.audit);
  const scheduled = o.audit.schedule !== undefined && o.kind === "energy";
  return recordSpend(deps, {
    id: confirmationEntryId(o.confirmationId),
    kind: scheduled ? "schedule_run" : o.kind,
    ...parties,
    ...(o.audit.address !== undefined && { address: o.audit.address }),
    chargedTrx: o.chargedTrx,
    result: o.result ?? (o.audit.result === "ok" ? "ordered" : "failed"),
    ...(o.audit.orderIds && { orderIds: o.audit.orderIds }),
    confirmationId: o.confirmationId,
    detail: o.detail ?? o.audit.message ?? "",
    ...(o.energy !== undefined && { energy: o.energy }),
    ...(o.addresses !== undefined && { addresses: o.addresses }),
    ...(o.holds !== false && { cap: { actor: o.audit.actor, holdId: o.confirmationId } }),
    audit: o.audit,
  });
}

/**
 * A reconciler that gave up: the service never said whether the spend happened. Entered as failed
 * at 0 (nothing known to be charged), and its hold stays on the day: it may have been charged.
 */
export function recordNeverLearned(
  deps: Deps,
  o: Pick<ConfirmedOutcome, "kind" | "confirmationId"> & { audit: SpendOutcome & { message: string } },
): Promise<LedgerEntry | undefined> {
  return recordConfirmed(deps, {
    ...o,
    chargedTrx: "0",
    holds: false,
    detail: `outcome never learned: ${o.audit.message}`,
  });
}
