import { type AuditEntry, appendAudit } from "../audit.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey, type ConversationRef, conversationKey } from "../invocation.js";
import { recordSpend } from "../spend-guard.js";
import { noteSpend } from "./balance-cache.js";

/**
 * What every spending outcome leaves behind: the day's total of the user (once per confirmation,
 * whichever retry or instance records it) and one audit entry, for success and failure alike.
 */
const RECORDED_TTL_MS = 48 * 60 * 60_000;

/** Adds `amountTrx` to the actor's day once per confirmation; false when it was already recorded. */
export async function recordSpendOnce(
  deps: Pick<CoreDeps, "store" | "now" | "observer">,
  confirmationId: string,
  actor: Actor,
  amountTrx: string,
): Promise<boolean> {
  const first = await deps.store.setIfNotExists(
    `spend-recorded:${confirmationId}`,
    amountTrx,
    RECORDED_TTL_MS,
  );
  if (!first) return false;
  await recordSpend({ store: deps.store, actor, amountTrx, now: deps.now, observer: deps.observer });
  // Quotes subtract it from the last balance reading instead of waiting for a new one.
  await noteSpend(deps, amountTrx);
  return true;
}

export interface SpendOutcome {
  actor: Actor | string;
  conversation: ConversationRef | string;
  verb: string;
  address?: string;
  amount?: string;
  quoteTrx?: string;
  result: AuditEntry["result"];
  message?: string;
  orderIds?: string[];
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
