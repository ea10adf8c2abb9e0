import { isServiceError } from "../../service/errors.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import type { ActionContext } from "../command.js";
import { expectNotifications } from "../notices/expectations.js";
import type { Confirmed } from "../spend/confirmed.js";
import type { Placed } from "../spend/definition.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { withFellNote } from "../spend/pipeline.js";
import { withResend } from "../spend/resend.js";
import { confirmOrchestrator } from "./confirm-orchestrator.js";
import { order5mFailureLine } from "./energy-errors.js";
import type { EnergyConfirmPayload } from "./energy-payload.js";
import {
  afterOrder5m,
  order5mFailed,
  order5mKeyOf,
  order5mOutcomeUnknown,
  order5mPlaced,
  renderPlaced,
} from "./order5m-flow.js";
import { reconcileOrder5m, UNKNOWN_YET_LINE } from "./reconcile-order5m.js";

/**
 * Placing an energy order the decision at Confirm allowed (src/core/spend/pipeline.ts decides;
 * the core claimed the buttons and stored the click as a durable intent): the idempotency key
 * derives from the confirmation, so a resend, a reconciliation or a recovery can never place a
 * second order.
 */
/**
 * Places the order the decision allowed (its amount reserved). `fellByTrx`: the price fell since
 * the quote, said under the outcome.
 */
export async function placeEnergy(
  ctx: ActionContext,
  who: Confirmed,
  p: EnergyConfirmPayload,
  fellByTrx?: string,
): Promise<Placed> {
  const placed =
    p.route === "order5m" ? await confirmOrder5m(ctx, who, p) : await confirmOrchestrator(ctx, who, p);
  return withFellNote(placed, fellByTrx, p.quoteTrx);
}

async function confirmOrder5m(ctx: ActionContext, who: Confirmed, p: EnergyConfirmPayload): Promise<Placed> {
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
      return { result: "pending", reply: outcomeLine(UNKNOWN_YET_LINE) };
    }
    const line = order5mFailureLine(error);
    return { ...order5mFailed(who, p, line), reply: outcomeLine(line) };
  }
  await deps.faults?.("after-answer");
  await afterOrder5m(deps, who, p, outcome);
  return { ...order5mPlaced(who, p, outcome), reply: renderPlaced(deps, who, p, outcome) };
}
