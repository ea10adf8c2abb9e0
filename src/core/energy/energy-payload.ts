import { z } from "zod";
import { type Actor, actorSchema, type ConversationRef, conversationRefSchema } from "../invocation.js";

/** The Confirm button of an energy quote: what was quoted, so the confirmation spends exactly that. */
export const ENERGY_CONFIRM_KIND = "energy.confirm";

export const energyConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  amount: z.number().int().positive(),
  route: z.enum(["order5m", "orchestrator"]),
  quoteTrx: z.string().regex(/^\d+(\.\d+)?$/),
  unitPriceSun: z.number(),
  periodLabel: z.string(),
  /** Set when a standing order's run placed it (src/core/schedule/): audited as such. */
  scheduleId: z.string().optional(),
});

export type EnergyConfirmPayload = z.infer<typeof energyConfirmPayloadSchema>;

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
}

/** The audit fields every outcome of one energy confirmation shares. */
export const auditBase = (who: Pick<Confirmed, "actor" | "conversation">, p: EnergyConfirmPayload) => ({
  actor: who.actor,
  conversation: who.conversation,
  verb: "energy",
  address: p.address,
  amount: String(p.amount),
  quoteTrx: p.quoteTrx,
  ...(p.scheduleId !== undefined && { schedule: p.scheduleId }),
});
