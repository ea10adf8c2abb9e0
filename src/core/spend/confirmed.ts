import { z } from "zod";
import type { ActionContext } from "../command.js";
import { type Actor, actorSchema, type ConversationRef, conversationRefSchema } from "../invocation.js";
import type { Requester } from "../spend-lifecycle.js";
import { followUpConversation } from "../threads/follow-ups.js";

/**
 * Who confirmed a spend, shared by every money feature (energy, Host Mode, approvals and what
 * comes next): the record, its stored form, and the name replies give the confirmer.
 */
/** The stored form of `Confirmed` (reconciliation records), checked on the way out of the store. */
export const confirmedSchema = z.object({
  confirmationId: z.string(),
  actor: actorSchema,
  conversation: conversationRefSchema,
});

/** The confirmer's name for replies: the display name, else `slack:U…`. */
export const whoName = (actor: { displayName?: string; platform: string; userId: string }): string =>
  actor.displayName ?? `${actor.platform}:${actor.userId}`;

/** Who confirmed an order, where, and the confirmation every key derives from. */
export interface Confirmed {
  confirmationId: string;
  actor: Actor;
  conversation: ConversationRef;
  /** Where the order's follow-ups go: the thread of (or a reply to) the message that confirmed it. */
  followUp?: ConversationRef;
  /** Who asked beside the confirming person (a standing order, an agent); absent: that person. */
  requester?: Requester;
}

/**
 * The audit field of who asked: `{ requester: "agent:<name>" }`; nothing for a person, and
 * nothing for a standing order (its entries carry `schedule: <id>` already).
 */
export const requesterField = (who: Pick<Confirmed, "requester">): { requester?: string } =>
  who.requester?.kind === "agent" ? { requester: `agent:${who.requester.name}` } : {};

/**
 * The confirmer of a clicked Confirm: the click's actor and conversation, and the thread of the
 * message that shows the order as the place its follow-ups (deliveries, cycles) go.
 */
export const confirmedBy = (ctx: ActionContext): Confirmed => ({
  confirmationId: ctx.record.confirmationId,
  actor: ctx.invocation.actor,
  conversation: ctx.invocation.conversation,
  followUp: followUpConversation(ctx.deps, ctx.invocation),
});
