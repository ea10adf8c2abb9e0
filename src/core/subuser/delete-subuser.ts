import { APPROVE_KIND, describeSpend, openRequest, renderRequest } from "../approvals/index.js";
import type { ActionContext, ActionHandler } from "../command.js";
import type { Reply } from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import { subuserFailureLine } from "./subuser-errors.js";
import {
  SUBUSER_DELETE_KIND,
  type SubuserDeletePayload,
  subuserDeletePayloadSchema,
} from "./subuser-payload.js";
import { renderDeleted } from "./subuser-render.js";

/**
 * The Delete sub-user button: one `DELETE /apiv2/subuserdel/{user_id}`, never resent (the client
 * marks it not resendable), its result or one plain line in place of the message, audited either
 * way. The core claims the button group once, so a double click sends one DELETE. With
 * OPS_APPROVAL_TRX set the click opens a two-person approval request instead (another admin
 * approves; src/core/approvals/), and the approval runs this handler again as the requester.
 * Durable: a click whose process died is carried out by the recovery job, which says so when the
 * service then answers "not found".
 */
export const subuserDeleteAction: ActionHandler = {
  kind: SUBUSER_DELETE_KIND,
  role: "admin",
  durable: true,
  async run(ctx, raw) {
    const payload = subuserDeletePayloadSchema.parse(raw);
    const approval = await approvalStep(ctx, payload);
    if (approval) return approval;
    const { deps } = ctx;
    const { actor, conversation } = ctx.invocation;
    const base = { actor, conversation, verb: "subuser delete", amount: String(payload.userId) };
    try {
      const result = await deps.service.account.deleteSubuser(payload.userId);
      await auditSpend(deps, {
        ...base,
        result: "ok",
        message: `${result.google_id} deleted; ${result.total_reassigned} reassigned to ${result.parent_user_id}, ${result.total_deleted} deleted: ${result.message}`,
      });
      return renderDeleted(result, whoName(actor));
    } catch (error) {
      deps.logger.warn({ err: error, userId: payload.userId }, "sub-user deletion failed");
      const line = subuserFailureLine(error, payload.userId, { recovered: ctx.recovered === true });
      await auditSpend(deps, { ...base, result: "failed", message: line });
      return outcomeLine(line);
    }
  },
};

/**
 * Two-person approval for a deletion: whenever OPS_APPROVAL_TRX is set (a deletion has no price to
 * compare), except when the approval itself runs it. The console has one person: refused there.
 */
async function approvalStep(ctx: ActionContext, payload: SubuserDeletePayload): Promise<Reply | undefined> {
  const { deps } = ctx;
  if (deps.settings.approvalTrx === undefined || ctx.record.kind === APPROVE_KIND) return undefined;
  const { actor, conversation } = ctx.invocation;
  const what = describeSpend({ spend: "subuser", payload });
  if (actor.platform === "console") {
    const line = `Not deleted: two-person approval is on (OPS_APPROVAL_TRX), and the console has one person, so no second admin can approve it. Use Slack or Telegram.`;
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      result: "failed",
      message: `${what}: ${line}`,
    });
    return outcomeLine(line);
  }
  const { request, created } = await openRequest(deps, {
    id: ctx.record.confirmationId,
    spend: "subuser",
    payload,
    quoteTrx: "0",
    requester: actor,
    conversation,
  });
  if (created) {
    await auditSpend(deps, {
      actor,
      conversation,
      verb: "approval request",
      result: "ok",
      message: `request ${request.id}: ${what}`,
    });
  }
  return renderRequest(request, deps.now());
}
