import type { ActionContext } from "../command.js";
import { formatAmount } from "../format.js";
import type { Reply } from "../reply.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import { describeSpend, renderRequest } from "./approval-render.js";
import { openRequest, type SpendKind } from "./request.js";

/**
 * A spending Confirm whose decision at Confirm (src/core/spend/decide-at-confirm.ts) said
 * "approval" (the live amount is at or above OPS_APPROVAL_TRX) becomes an approval request in the
 * same conversation, at the live amount, and its reply replaces the quote. The Approve handler
 * decides again at its own click and places the order as the requester.
 */
export interface GatedSpend {
  kind: SpendKind;
  quoteTrx: string;
  /** The Confirm's validated payload. */
  payload: unknown;
}

export async function askApproval(ctx: ActionContext, spend: GatedSpend): Promise<Reply> {
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
