import type { ActionHandler } from "../command.js";
import { recordConfirmed } from "../ledger/record.js";
import { whoName } from "../spend/confirmed.js";
import { defineGuarded } from "../spend/definition.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { confirmActionOf } from "../spend/pipeline.js";
import { subuserFailureLine } from "./subuser-errors.js";
import { SUBUSER_DELETE_KIND, subuserDeletePayloadSchema } from "./subuser-payload.js";
import { renderDeleted } from "./subuser-render.js";

/**
 * The Delete sub-user button, a guarded action (src/core/spend/definition.ts): one
 * `DELETE /apiv2/subuserdel/{user_id}`, never resent (the client marks it not resendable), its
 * result or one plain line in place of the message, audited either way. The pipeline claims the
 * button group once (a double click sends one DELETE) and stores the click as a durable intent (a
 * click whose process died is carried out by the recovery job, which says so when the service then
 * answers "not found"). With OPS_APPROVAL_TRX set the click opens a two-person approval request
 * instead (another admin approves), and the approval runs it as the requester.
 */
export const subuserDeletion = defineGuarded({
  name: "subuser",
  confirmKind: SUBUSER_DELETE_KIND,
  schema: subuserDeletePayloadSchema,
  role: "admin",
  // A deletion has no price to compare: whenever two-person approval is on.
  needsApproval: (deps) => deps.settings.approvalTrx !== undefined,
  describe: (p) => `deleting sub-user ${p.userId}`,
  approvalText: {
    why: (who) =>
      `Deleting a sub-user is irreversible and needs a second person (OPS_APPROVAL_TRX is set): any other admin may approve. ${who} may not approve their own request.`,
    self: "You asked for this deletion, so another admin must approve it. Nothing was done; the buttons stay for them.",
    nothingDone: "Nothing was deleted.",
    onePerson:
      "Not deleted: two-person approval is on (OPS_APPROVAL_TRX), and the console has one person, so no second admin can approve it. Use Slack or Telegram.",
  },
  async run(ctx, who, payload) {
    const { deps } = ctx;
    const { actor, conversation } = who;
    const base = { actor, conversation, verb: "subuser delete", amount: String(payload.userId) };
    try {
      const result = await deps.service.account.deleteSubuser(payload.userId);
      await recordConfirmed(deps, {
        kind: "subuser_delete",
        confirmationId: who.confirmationId,
        chargedTrx: "0",
        holds: false,
        detail: `sub-user ${payload.userId}: ${result.google_id} deleted; ${result.total_reassigned} reassigned to ${result.parent_user_id}, ${result.total_deleted} deleted`,
        audit: {
          ...base,
          result: "ok",
          message: `${result.google_id} deleted; ${result.total_reassigned} reassigned to ${result.parent_user_id}, ${result.total_deleted} deleted: ${result.message}`,
        },
      });
      return renderDeleted(result, whoName(actor));
    } catch (error) {
      deps.logger.warn({ err: error, userId: payload.userId }, "sub-user deletion failed");
      const line = subuserFailureLine(error, payload.userId, { recovered: ctx.recovered === true });
      await recordConfirmed(deps, {
        kind: "subuser_delete",
        confirmationId: who.confirmationId,
        chargedTrx: "0",
        holds: false,
        detail: `sub-user ${payload.userId}: ${line}`,
        audit: { ...base, result: "failed", message: line },
      });
      return outcomeLine(line);
    }
  },
});

/** Its button's handler (the feature lists the definition; tests press it directly). */
export const subuserDeleteAction: ActionHandler = confirmActionOf(subuserDeletion);
