import Big from "big.js";
import type { ActionContext } from "../command.js";
import { outcomeLine } from "../energy/energy-render.js";
import { formatAmount } from "../format.js";
import type { Reply } from "../reply.js";
import { auditSpend } from "../spend/record.js";
import { describeSpend, renderRequest } from "./render.js";
import { APPROVE_KIND, openRequest, type SpendKind } from "./request.js";

/**
 * The one early branch of a spending Confirm: below OPS_APPROVAL_TRX (or unset) it answers
 * undefined and the Confirm goes on as before; at or above, the Confirm becomes an approval
 * request in the same conversation and its reply replaces the quote. The Approve handler runs the
 * same Confirm again with its own record kind, which passes straight through.
 */
export interface GatedSpend {
  kind: SpendKind;
  quoteTrx: string;
  /** The Confirm's validated payload. */
  payload: unknown;
}

export function needsApproval(ctx: Pick<ActionContext, "deps" | "record">, quoteTrx: string): boolean {
  if (ctx.record.kind === APPROVE_KIND) return false;
  const threshold = ctx.deps.settings.approvalTrx;
  return threshold !== undefined && new Big(quoteTrx).gte(threshold);
}

export async function approvalGate(ctx: ActionContext, spend: GatedSpend): Promise<Reply | undefined> {
  if (!needsApproval(ctx, spend.quoteTrx)) return undefined;
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const what = describeSpend({ spend: spend.kind, payload: spend.payload });
  const threshold = deps.settings.approvalTrx ?? "";
  if (actor.platform === "console") {
    const line = `Not ordered: ${formatAmount(spend.quoteTrx)} is at or above the approval threshold of ${formatAmount(threshold)} (OPS_APPROVAL_TRX), and the console has one person, so no second person can approve it. Use Slack or Telegram, or a smaller order.`;
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      quoteTrx: spend.quoteTrx,
      result: "failed",
      message: `${what}: ${line}`,
    });
    return outcomeLine(line);
  }
  const { request, created } = await openRequest(deps, {
    id: ctx.record.confirmationId,
    spend: spend.kind,
    payload: spend.payload,
    quoteTrx: spend.quoteTrx,
    requester: actor,
    conversation,
  });
  if (created) {
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      quoteTrx: spend.quoteTrx,
      result: "ok",
      message: `request ${request.id}: ${what}`,
    });
  }
  return renderRequest(request, deps.now());
}
