import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { OrchestratorAccepted } from "../../service/orchestrator.js";
import type { ActionContext } from "../command.js";
import { actorKey } from "../invocation.js";
import { expectNotifications } from "../notices/expectations.js";
import { type Confirmed, requesterField, whoName } from "../spend/confirmed.js";
import type { Placed } from "../spend/definition.js";
import { orchestratorFailureLine, orchestratorOutcomeUnknown } from "../spend/order-errors.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { withResend } from "../spend/resend.js";
import { autoWatch } from "../watch/index.js";
import { auditBase, type EnergyConfirmPayload } from "./energy-payload.js";
import { renderOrchestratorAccepted } from "./energy-render.js";
import { trackOrchestrator } from "./orchestrator-tracking.js";

/**
 * Confirm of an order above one 5-minute order: one orchestrator order for the address, keyed by
 * the confirmation. Nothing is charged at acceptance; the live quote stays held against the daily
 * limit (the real charges arrive chunk by chunk), and a poll job follows the order: its final poll
 * settles the hold at the energy delivered, at the unit price decided at Confirm, whichever path
 * tracked it (accepted, or reconciled after a lost answer). A never-accepted order releases it.
 */
export async function confirmOrchestrator(
  ctx: ActionContext,
  who: Confirmed,
  p: EnergyConfirmPayload,
): Promise<Placed> {
  const { deps } = ctx;
  const { actor, confirmationId } = who;
  // Chunk deliveries and the final summary go into the thread of the message that shows this order.
  const conversation = who.followUp ?? who.conversation;
  const idempotencyKey = requestIdempotencyKey(confirmationId);
  const context = {
    actor: actorKey(actor),
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    unitPriceSun: p.unitPriceSun,
    confirmationId,
    ...(p.scheduleId !== undefined && { scheduleId: p.scheduleId }),
    ...requesterField(who),
  };
  await expectNotifications(ctx.deps, conversation, {
    kind: "orchestrator",
    address: p.address,
    idempotencyKey,
  });
  let accepted: { replayed: boolean; detail: OrchestratorAccepted };
  try {
    accepted = await withResend(
      () =>
        deps.service.orchestrator.create({
          items: [{ receiveAddress: p.address, amount: p.amount }],
          idempotencyKey,
        }),
      { logger: deps.logger, endpoint: "orchestrator.create" },
    );
  } catch (error) {
    const line = orchestratorFailureLine(error);
    deps.logger.warn({ err: error, idempotencyKey }, "orchestrator order failed");
    // It may exist after all: the poll finds it by its key, or says that it was never accepted.
    if (orchestratorOutcomeUnknown(error)) {
      await trackOrchestrator(deps, { idempotencyKey, conversation, context });
      return { result: "pending", reply: outcomeLine(line) };
    }
    const failed = { chargedTrx: "0", orderIds: [], detail: line, audit: auditBase(who, p) };
    return { result: "failed", ...failed, reply: outcomeLine(line) };
  }
  await deps.faults?.("after-answer");
  const requestId = String(accepted.detail.data.requestId);
  try {
    await trackOrchestrator(deps, { idempotencyKey, conversation, context });
    await autoWatch(deps, conversation, p.address, actor);
  } catch (error) {
    deps.logger.error(
      { err: error, idempotencyKey },
      "orchestrator order accepted, but its bookkeeping failed",
    );
  }
  const reply = renderOrchestratorAccepted({
    accepted: accepted.detail,
    replayed: accepted.replayed,
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    by: whoName(actor),
  });
  // Charged per delivered chunk: its tracking job enters the charge when the order is final.
  return {
    result: "accepted",
    orderIds: [requestId],
    detail: `orchestrator accepted (request ${requestId}, key ${idempotencyKey}); charged per delivered chunk`,
    audit: auditBase(who, p),
    reply,
  };
}
