import type { ActionContext } from "../command.js";
import { formatAmount } from "../format.js";
import { platformFacts } from "../platforms.js";
import type { Reply } from "../reply.js";
import { type Requester, tell } from "../spend-lifecycle.js";
import { approversOf, describeRequest, renderRequest } from "./approval-render.js";
import { openRequest } from "./approval-request.js";
import type { AnyDefinition } from "./definition.js";
import { outcomeLine } from "./outcome-render.js";
import { auditSpend } from "./spend-audit.js";

/**
 * The pipeline's approval step: a Confirm whose decision said "approval" (a spend at or above
 * OPS_APPROVAL_TRX, at the live amount) or a guarded action that needs a second person becomes an
 * approval request in the same conversation, and its reply replaces the quote. The Approve button
 * (src/core/approvals/) decides again at its own click and carries it out as the requester.
 */
export async function askApproval(
  ctx: ActionContext,
  def: AnyDefinition,
  ask: { payload: unknown; quoteTrx?: string; requester?: Requester },
): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const what = describeRequest(def, ask);
  const quoteTrx = ask.quoteTrx === undefined ? {} : { quoteTrx: ask.quoteTrx };
  if (platformFacts(deps.platforms, actor.platform).onePerson) {
    const line =
      def.kind === "guarded" ? def.approvalText.onePerson : onePersonLine(deps, ask.quoteTrx ?? "0");
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      ...quoteTrx,
      result: "failed",
      message: `${what}: ${line}`,
    });
    // No second person here: the spend ends refused, and whoever asked for it is told so.
    const ref = { spend: def.name, confirmationId: ctx.record.confirmationId };
    await tell(deps, { ...ref, ...(ask.requester && { requester: ask.requester }), status: "refused", line });
    return outcomeLine(line);
  }
  const { request, created } = await openRequest(
    deps,
    {
      id: ctx.record.confirmationId,
      spend: def.name,
      payload: ask.payload,
      ...quoteTrx,
      ...(ask.requester !== undefined && { origin: ask.requester }),
      requester: actor,
      conversation,
    },
    approversOf(def),
  );
  if (created) {
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      ...quoteTrx,
      result: "ok",
      message: `request ${request.id}: ${what}`,
    });
    const ref = {
      spend: def.name,
      confirmationId: request.id,
      ...(ask.requester && { requester: ask.requester }),
    };
    await tell(deps, { ...ref, status: "approval_pending", ...quoteTrx });
  }
  return renderRequest(def, request, deps.now());
}

const onePersonLine = (deps: ActionContext["deps"], quoteTrx: string): string => {
  const threshold = deps.settings.approvalTrx ?? "";
  return `Not ordered: ${formatAmount(quoteTrx)} is at or above the approval threshold of ${formatAmount(threshold)} (OPS_APPROVAL_TRX), and the console has one person, so no second person can approve it. Use Slack or Telegram, or a smaller order.`;
};
