import { z } from "zod";
import { type Confirmed, requesterField } from "../spend/confirmed.js";

/** The Confirm button of an energy quote: what was quoted, so the confirmation spends exactly that. */
export const ENERGY_CONFIRM_KIND = "energy.confirm";

export const energyConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  amount: z.number().int().positive(),
  route: z.enum(["order5m", "orchestrator"]),
  quoteTrx: z.string().regex(/^\d+(\.\d+)?$/),
  unitPriceSun: z.number(),
  periodLabel: z.string(),
  /** The activation fee the caps hold beside the quote: the address may not be active yet. */
  activationTrx: z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .optional(),
  /** Set when a standing order's run placed it (src/core/schedule/): audited as such. */
  scheduleId: z.string().optional(),
});

export type EnergyConfirmPayload = z.infer<typeof energyConfirmPayloadSchema>;

/** The audit fields every outcome of one energy confirmation shares. */
export const auditBase = (
  who: Pick<Confirmed, "actor" | "conversation" | "requester">,
  p: EnergyConfirmPayload,
) => ({
  actor: who.actor,
  conversation: who.conversation,
  verb: "energy",
  address: p.address,
  amount: String(p.amount),
  quoteTrx: p.quoteTrx,
  ...(p.scheduleId !== undefined && { schedule: p.scheduleId }),
  ...requesterField(who),
});
