import { order5mIdempotencyKey } from "../../service/idempotency.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import type { ActionContext, ActionHandler } from "../command.js";
import { rememberOrigin } from "../origins.js";
import { outcomeLine, renderOrder5mResult } from "../render/energy.js";
import type { Reply } from "../reply.js";
import { checkSpend } from "../spend-guard.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { watchDelivery } from "../tracking/delivery-watch.js";
import { forgetBalance } from "./balance-cache.js";
import { confirmOrchestrator } from "./confirm-orchestrator.js";
import { order5mFailureLine } from "./energy-errors.js";
import {
  auditBase,
  ENERGY_CONFIRM_KIND,
  type EnergyConfirmPayload,
  energyConfirmPayloadSchema,
  whoName,
} from "./energy-payload.js";
import { auditSpend, recordSpendOnce } from "./record.js";
import { withResend } from "./resend.js";

/**
 * Confirm of an energy quote. The core has claimed the button group atomically, so this runs once
 * per quote; the idempotency key derives from the claimed confirmation, so even a resend after a
 * lost answer (or a job re-run) can never place a second order.
 */
export const energyConfirmAction: ActionHandler = {
  kind: ENERGY_CONFIRM_KIND,
  role: "operator",
  async run(ctx, payload) {
    const parsed = energyConfirmPayloadSchema.safeParse(payload);
    if (!parsed.success) throw new Error(`bad ${ENERGY_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const { deps } = ctx;
    const spend = await checkSpend({
      store: deps.store,
      actor: ctx.invocation.actor,
      quoteTrx: p.quoteTrx,
      settings: deps.settings,
      now: deps.now,
    });
    if (!spend.ok) {
      const line = `Not ordered: ${spend.line}`;
      await auditSpend(deps, { ...auditBase(ctx, p), result: "failed", message: line });
      return outcomeLine(line);
    }
    return p.route === "order5m" ? confirmOrder5m(ctx, p) : confirmOrchestrator(ctx, p);
  },
};

async function confirmOrder5m(ctx: ActionContext, p: EnergyConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  const idempotencyKey = order5mIdempotencyKey({
    confirmationId: ctx.record.confirmationId,
    period: "5m",
    receiveAddress: p.address,
    amount: p.amount,
  });
  let outcome: Order5mOutcome;
  try {
    outcome = await withResend(
      () => deps.service.order5m.create({ amount: p.amount, receiveAddress: p.address, idempotencyKey }),
      { logger: deps.logger, endpoint: "order5m.create" },
    );
  } catch (error) {
    const line = order5mFailureLine(error);
    deps.logger.warn({ err: error, confirmationId: ctx.record.confirmationId }, "energy order failed");
    await auditSpend(deps, { ...auditBase(ctx, p), result: "failed", message: line });
    return outcomeLine(line);
  }
  await afterOrder(ctx, p, outcome);
  return renderOrder5mResult({
    outcome,
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    explorerTxUrl: deps.settings.explorerTxUrl,
    by: whoName(ctx.invocation.actor),
  });
}

/**
 * The bookkeeping of a placed order. The order exists whatever happens here, so a failure is
 * logged and never turned into an error line that would make the user order again.
 */
async function afterOrder(
  ctx: ActionContext,
  p: EnergyConfirmPayload,
  outcome: Order5mOutcome,
): Promise<void> {
  const { deps } = ctx;
  const { actor } = ctx.invocation;
  // Delivery and activation notices go into the thread of the message that shows this order.
  const conversation = followUpConversation(ctx.invocation);
  const { result } = outcome;
  try {
    await recordSpendOnce(deps, ctx.record.confirmationId, actor, result.paidTRX);
    await forgetBalance(deps);
    await rememberOrigin(deps.store, "order", result.orderId, conversation);
    // The activation webhook names its own order id and, as `source`, this order's id; its hash
    // is remembered too, so the listener can route it either way.
    if (result.activationHash) await rememberOrigin(deps.store, "order", result.activationHash, conversation);
    await watchDelivery(deps, { orderId: result.orderId, address: p.address, conversation });
  } catch (error) {
    deps.logger.error(
      { err: error, orderId: result.orderId },
      "energy order placed, but its bookkeeping failed",
    );
  }
  await auditSpend(deps, {
    ...auditBase(ctx, p),
    result: "ok",
    message: `${outcome.replayed ? "(repeat answered from the service's cache) " : ""}paid ${result.paidTRX} TRX: ${outcome.message}`,
    orderIds: [result.orderId],
  });
}
