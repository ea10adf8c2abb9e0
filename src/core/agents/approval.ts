import type { ActionContext } from "../command.js";
import { whoName } from "../spend/confirmed.js";
import type { AgentOutcome } from "./requests.js";

const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;

/**
 * What an agent's request became when its Confirm asked for approval: a second person's Approve
 * is awaited until the approval request lapses; the console has no second person, so it is refused.
 */
export function agentOutcomeOfApproval(ctx: ActionContext, line: string): AgentOutcome {
  const confirmedBy = whoName(ctx.invocation.actor);
  if (ctx.invocation.actor.platform === "console") return { status: "refused", line, confirmedBy };
  const ttlMs = ctx.deps.settings.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  return { status: "approval_pending", confirmedBy, expiresAt: ctx.deps.now() + ttlMs };
}
