import type { ActionContext } from "../command.js";
import { actorKey } from "../invocation.js";
import type { Reply } from "../reply.js";
import type { ApprovalRequest } from "../spend/approval-request.js";
import type { Confirmed } from "../spend/confirmed.js";
import type { ConfirmDecision, LiveQuote } from "../spend/decide-at-confirm.js";
import type { AnyDefinition, SpendDefinition } from "../spend/definition.js";
import { decide, placeSpend, withRequesterNote } from "../spend/pipeline.js";
import { followUpConversation } from "../threads/follow-ups.js";

/**
 * How an approved request is decided again and carried out, through its definition. A spend
 * decides as at Confirm (src/core/spend/pipeline.ts), at the Approve click, as the requester with
 * the approval given: the live price (a rise asks again), the deny list, the balance and the
 * requester's caps, reserved under the request id. A guarded action has nothing to decide but the
 * approval itself. Either is carried out by its definition, keyed by the request id: a re-run (a
 * crash during the Approve) places it again with the same idempotency key, or finds it placed.
 */
export function decideApproved(
  ctx: ActionContext,
  def: SpendDefinition,
  request: ApprovalRequest,
): Promise<ConfirmDecision<LiveQuote>> {
  const payload = def.schema.parse(request.payload);
  const seed = {
    confirmationId: request.id,
    actor: request.requester,
    ...(request.origin !== undefined && { requester: request.origin }),
  };
  return decide(ctx.deps, def, payload, seed, { approval: "approved" });
}

/** Carries the approved request out as its requester (their caps, audit and notifications). */
export async function carryOut(
  ctx: ActionContext,
  def: AnyDefinition,
  request: ApprovalRequest,
  payload: unknown,
): Promise<Reply> {
  const asRequester: ActionContext = {
    ...ctx,
    invocation: { ...ctx.invocation, actor: request.requester, conversation: request.conversation },
    record: { ...ctx.record, confirmationId: request.id, createdBy: actorKey(request.requester) },
  };
  const who: Confirmed = {
    confirmationId: request.id,
    actor: request.requester,
    conversation: request.conversation,
    followUp: followUpConversation(ctx.deps, asRequester.invocation),
    ...(request.origin !== undefined && { requester: request.origin }),
  };
  const parsed = def.schema.parse(payload);
  const reply = await (def.kind === "spend"
    ? placeSpend(asRequester, def, who, parsed)
    : def.run(asRequester, who, parsed));
  return withRequesterNote(reply, who.requester);
}
