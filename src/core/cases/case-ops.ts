import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey, type ConversationRef } from "../invocation.js";
import { auditCase, refreshCase } from "./case-messages.js";
import {
  type CaseEvent,
  type CaseRecord,
  type CaseTransition,
  CLOSED_STATES,
  updateCase,
} from "./case-record.js";

/**
 * What people do with a case: take it, note on it, clear it or report it (the last two with a
 * reason, always). Each is a versioned update (two presses at once: one wins, the other is told
 * what happened first), an audit entry, and an edit of the case's messages in place.
 */
export type CaseOp = "take" | "note" | "clear" | "report";

export const nameOf = (actor: Actor): string => actor.displayName ?? actorKey(actor);

function transitionFor(op: CaseOp, event: CaseEvent): CaseTransition {
  return (current) => {
    if (op === "note") return { ...current, timeline: [...current.timeline, event] };
    if (CLOSED_STATES.has(current.state))
      return { refused: `Case ${current.id} is already ${current.state}; a new finding reopens it.` };
    if (op === "take") {
      if (current.state === "taken")
        return { refused: `Case ${current.id} is already taken by ${current.owner?.by ?? "someone"}.` };
      return {
        ...current,
        state: "taken",
        owner: { by: event.by, byKey: event.byKey ?? "", at: event.at },
        timeline: [...current.timeline, event],
      };
    }
    return {
      ...current,
      state: op === "clear" ? "cleared" : "reported",
      closedAt: event.at,
      timeline: [...current.timeline, event],
    };
  };
}

const WHAT: Record<CaseOp, CaseEvent["what"]> = {
  take: "taken",
  note: "note",
  clear: "cleared",
  report: "reported",
};

export async function applyCaseOp(
  deps: CoreDeps,
  input: {
    id: string;
    op: CaseOp;
    actor: Actor;
    conversation: ConversationRef;
    note?: string;
    /** The message a button was pressed in: the click's reply replaces that one. */
    pressed?: string;
  },
): Promise<{ ok: true; record: CaseRecord } | { ok: false; line: string; record: CaseRecord | null }> {
  const event: CaseEvent = {
    what: WHAT[input.op],
    at: deps.now(),
    by: nameOf(input.actor),
    byKey: actorKey(input.actor),
    ...(input.note !== undefined && { note: input.note }),
  };
  const result = await updateCase(deps.store, input.id, transitionFor(input.op, event));
  if (!result.ok) return result;
  await auditCase(deps, result.record, event, input.conversation);
  await refreshCase(deps, result.record, input.pressed);
  return result;
}
