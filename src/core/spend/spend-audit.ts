import { type AuditEntry, appendAudit } from "../audit-log.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey, type ConversationRef, conversationKey } from "../invocation.js";

/**
 * The audit entry every spending outcome leaves behind, success and failure alike. What counts
 * toward the daily cap is kept by the reservations (reservation.ts).
 */
export interface SpendOutcome {
  actor: Actor | string;
  conversation: ConversationRef | string;
  verb: string;
  address?: string;
  /** A spend on many addresses (a payout run): one entry with all of them. */
  addresses?: string[];
  amount?: string;
  quoteTrx?: string;
  result: AuditEntry["result"];
  message?: string;
  orderIds?: string[];
  /** The standing order whose run made this spend. */
  schedule?: string;
  /** Who asked beside the person who confirmed (`requesterKey`); absent: that person. */
  requester?: string;
}

export async function auditSpend(
  deps: Pick<CoreDeps, "store" | "now" | "logger">,
  outcome: SpendOutcome,
): Promise<void> {
  const entry: AuditEntry = {
    ...outcome,
    at: new Date(deps.now()).toISOString(),
    actor: typeof outcome.actor === "string" ? outcome.actor : actorKey(outcome.actor),
    conversation:
      typeof outcome.conversation === "string" ? outcome.conversation : conversationKey(outcome.conversation),
  };
  try {
    await appendAudit(deps.store, entry);
  } catch (error) {
    // The outcome already happened; a lost audit line must not turn it into an error for the user.
    deps.logger.error({ err: error, audit: entry }, "could not append the audit entry");
  }
}
