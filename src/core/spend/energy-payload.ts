import { z } from "zod";
import type { Confirmed } from "./confirmed.js";

/** The Confirm button of an energy quote: what was quoted, so the confirmation spends exactly that. */
export const ENERGY_CONFIRM_KIND = "energy.confirm";

/** An agent's request behind a quote (src/core/agents/): who asked, why, and the request it follows. */
const agentRequesterSchema = z.object({
  agent: z.string(),
  reason: z.string(),
  requestId: z.string(),
});
export type AgentRequester = z.infer<typeof agentRequesterSchema>;

export const energyConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  amount: z.number().int().positive(),
  route: z.enum(["order5m", "orchestrator"]),
  quoteTrx: z.string().regex(/^\d+(\.\d+)?$/),
  unitPriceSun: z.number(),
  periodLabel: z.string(),
  /** Set when a standing order's run placed it (src/core/schedule/): audited as such. */
  scheduleId: z.string().optional(),
  /** Set when an agent asked for it over MCP (src/core/agents/): named in the outcome and the audit. */
  requester: agentRequesterSchema.optional(),
});

export type EnergyConfirmPayload = z.infer<typeof energyConfirmPayloadSchema>;

/** The audit fields every outcome of one energy confirmation shares. */
export const auditBase = (who: Pick<Confirmed, "actor" | "conversation">, p: EnergyConfirmPayload) => ({
  actor: who.actor,
  conversation: who.conversation,
  verb: "energy",
  address: p.address,
  amount: String(p.amount),
  quoteTrx: p.quoteTrx,
  ...(p.scheduleId !== undefined && { schedule: p.scheduleId }),
  ...(p.requester !== undefined && { requestedBy: `agent:${p.requester.agent}` }),
});

/** Who confirmed, as the outcome names it: with the agent that asked and its reason, when one did. */
export const confirmerOf = (name: string, p: EnergyConfirmPayload): string =>
  p.requester ? `${name}, asked by agent ${p.requester.agent} ("${p.requester.reason}")` : name;
