import type { AuditEntry } from "../audit-entry.js";
import { readAudit } from "../audit-log.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { type Requester, tell } from "../spend-lifecycle.js";
import type { Confirmed } from "./confirmed.js";

type Deps = CoreDeps;
export type Ref = { spend: string; confirmationId: string; requester?: Requester };

/**
 * The audit record a placing left for this confirmation's spend (its actor, its address, since it
 * began): what the lifecycle hook and an approval's audit line learn of it. None: not known yet
 * (a lost answer; its reconciler records it when known).
 */
export async function placedRecord(
  deps: Pick<Deps, "store">,
  match: { actor: Actor | string; address?: string; since: string },
): Promise<AuditEntry | undefined> {
  const actor = typeof match.actor === "string" ? match.actor : actorKey(match.actor);
  const entries = await readAudit(deps.store, 50);
  return entries.find(
    (e) =>
      e.actor === actor &&
      e.address === match.address &&
      e.at >= match.since &&
      !e.verb.startsWith("approval"),
  );
}

/** A payload's one address, when it has one (the audit record names it). */
export const addressOf = (payload: unknown): string | undefined => (payload as { address?: string }).address;

/** `ordered` (with the order ids) or `failed`, from the spend's own audit record. */
export async function tellOutcome(
  deps: Deps,
  ref: Ref,
  who: Confirmed,
  at: { address: string | undefined; since: string },
  paidTrx?: string,
): Promise<void> {
  if (deps.spendLifecycle === undefined) return;
  const entry = await placedRecord(deps, { actor: who.actor, ...at });
  if (entry === undefined) return;
  if (entry.result === "failed") {
    await tell(deps, { ...ref, status: "failed", line: entry.message ?? "" });
    return;
  }
  const orderIds = entry.orderIds === undefined ? {} : { orderIds: entry.orderIds };
  const paid = paidTrx === undefined ? {} : { paidTrx };
  await tell(deps, { ...ref, status: "ordered", ...paid, confirmedBy: actorKey(who.actor), ...orderIds });
}
