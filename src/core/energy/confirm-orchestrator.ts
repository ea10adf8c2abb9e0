import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { OrchestratorAccepted } from "../../service/orchestrator.js";
import { noteAgentOutcome } from "../agents/index.js";
import type { ActionContext } from "../command.js";
import { actorKey } from "../invocation.js";
import { expectNotifications } from "../notifications/expectations.js";
import type { Reply } from "../reply.js";
import { type Confirmed, whoName } from "../spend/confirmed.js";
import { orchestratorFailureLine, orchestratorOutcomeUnknown } from "../spend/energy-errors.js";
import { auditBase, confirmerOf, type EnergyConfirmPayload } from "../spend/energy-payload.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import { withResend } from "../spend/resend.js";
import { releaseSpend } from "../spend/reservation.js";
import { autoWatch } from "../watch/index.js";
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
): Promise<Reply> {
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
      return outcomeLine(line);
    }
    await releaseSpend(deps, confirmationId);
    await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
    // Agent hook (src/core/agents/): the order failed.
    await noteAgentOutcome(deps, p.requester, { status: "failed", line, confirmedBy: whoName(actor) });
    return outcomeLine(line);
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
  await auditSpend(deps, {
    ...auditBase(who, p),
    result: "ok",
    message: `orchestrator accepted (request ${requestId}, key ${idempotencyKey}); charged per delivered chunk`,
    orderIds: [requestId],
  });
  // Agent hook: the request an agent made is ordered (charged per delivered chunk).
  await noteAgentOutcome(deps, p.requester, {
    status: "ordered",
    orderId: requestId,
    confirmedBy: whoName(actor),
  });
  return renderOrchestratorAccepted({
    accepted: accepted.detail,
    replayed: accepted.replayed,
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    by: confirmerOf(whoName(actor), p),
  });
}
