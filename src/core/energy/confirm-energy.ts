import { isServiceError } from "../../service/errors.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import { approvalGate } from "../approvals/gate.js";
import type { ActionContext, ActionHandler } from "../command.js";
import { expectNotifications } from "../notifications/expectations.js";
import type { Reply } from "../reply.js";
import { auditSpend } from "../spend/record.js";
import { withResend } from "../spend/resend.js";
import { releaseSpend, reserveSpend } from "../spend/reservation.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { watchDenyLine } from "../watch/hooks.js";
import { confirmOrchestrator } from "./confirm-orchestrator.js";
import { order5mFailureLine } from "./energy-errors.js";
import {
  auditBase,
  type Confirmed,
  ENERGY_CONFIRM_KIND,
  type EnergyConfirmPayload,
  energyConfirmPayloadSchema,
} from "./energy-payload.js";
import { outcomeLine } from "./energy-render.js";
import { afterOrder5m, order5mKeyOf, order5mOutcomeUnknown, renderPlaced } from "./order5m-flow.js";
import { reconcileOrder5m, UNKNOWN_YET_LINE } from "./reconcile-order5m.js";

/**
 * Confirm of an energy quote. The core has claimed the button group atomically and stored the
 * click as a durable intent, so this runs once per quote, or again after a crash; the idempotency
 * key derives from the confirmation, so a resend, a reconciliation or a recovery can never place
 * a second order. The quote is held against the daily cap before anything is sent.
 */
export const energyConfirmAction: ActionHandler = {
  kind: ENERGY_CONFIRM_KIND,
  role: "operator",
  durable: true,
  async run(ctx, payload) {
    const parsed = energyConfirmPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${ENERGY_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const approval = await approvalGate(ctx, { kind: "energy", quoteTrx: p.quoteTrx, payload: p });
    if (approval) return approval;
    const { deps } = ctx;
    // A quote made before a deny-list re-check found the address blocked must not go through.
    const who = confirmedBy(ctx);
    const denied = await watchDenyLine(deps, p.address);
    if (denied) {
      await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: denied });
      return outcomeLine(denied);
    }
    const spend = await reserveSpend(deps, {
      confirmationId: who.confirmationId,
      actor: who.actor,
      quoteTrx: p.quoteTrx,
      settings: deps.settings,
    });
    if (!spend.ok) {
      const line = `Not ordered: ${spend.line}`;
      await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
      return outcomeLine(line);
    }
    return p.route === "order5m" ? confirmOrder5m(ctx, who, p) : confirmOrchestrator(ctx, who, p);
  },
};

const confirmedBy = (ctx: ActionContext): Confirmed => ({
  confirmationId: ctx.record.confirmationId,
  actor: ctx.invocation.actor,
  conversation: ctx.invocation.conversation,
  // Delivery and activation notices go into the thread of the message that shows this order.
  followUp: followUpConversation(ctx.invocation),
});

async function confirmOrder5m(ctx: ActionContext, who: Confirmed, p: EnergyConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  const idempotencyKey = order5mKeyOf(who.confirmationId, p);
  await expectNotifications(ctx.deps, who.conversation, { kind: "order5m", address: p.address });
  let outcome: Order5mOutcome;
  try {
    outcome = await withResend(
      () => deps.service.order5m.create({ amount: p.amount, receiveAddress: p.address, idempotencyKey }),
      { logger: deps.logger, endpoint: "order5m.create" },
    );
  } catch (error) {
    deps.logger.warn({ err: error, confirmationId: who.confirmationId }, "energy order not confirmed");
    if (order5mOutcomeUnknown(error)) {
      // The hold stays: the order may exist. The reconciler posts the outcome when it is known.
      const retryAfterMs = isServiceError(error) ? error.retryAfterMs : undefined;
      await reconcileOrder5m(deps, who, p, retryAfterMs, ctx.invocation.messageId);
      return outcomeLine(UNKNOWN_YET_LINE);
    }
    const line = order5mFailureLine(error);
    await releaseSpend(deps, who.confirmationId);
    await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
    return outcomeLine(line);
  }
  await deps.faults?.("after-answer");
  await afterOrder5m(deps, who, p, outcome);
  return renderPlaced(deps, who, p, outcome);
}
