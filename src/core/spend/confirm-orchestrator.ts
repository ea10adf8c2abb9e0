import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { OrchestratorAccepted } from "../../service/orchestrator.js";
import type { ActionContext } from "../command.js";
import { actorKey } from "../invocation.js";
import { outcomeLine, renderOrchestratorAccepted } from "../render/energy.js";
import type { Reply } from "../reply.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { trackOrchestrator } from "../tracking/orchestrator.js";
import { forgetBalance } from "./balance-cache.js";
import { orchestratorFailureLine, orchestratorOutcomeUnknown } from "./energy-errors.js";
import { auditBase, type EnergyConfirmPayload, whoName } from "./energy-payload.js";
import { auditSpend, recordSpendOnce } from "./record.js";
import { withResend } from "./resend.js";

/**
 * Confirm of an order above one 5-minute order: one orchestrator order for the address, keyed by
 * the confirmation. Nothing is charged at acceptance; the quote is recorded against the daily
 * limit right away (the real charges arrive chunk by chunk), and a poll job follows the order.
 */
export async function confirmOrchestrator(ctx: ActionContext, p: EnergyConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  const { actor } = ctx.invocation;
  // Chunk deliveries and the final summary go into the thread of the message that shows this order.
  const conversation = followUpConversation(ctx.invocation);
  const idempotencyKey = requestIdempotencyKey(ctx.record.confirmationId);
  const context = { actor: actorKey(actor), address: p.address, amount: p.amount, quoteTrx: p.quoteTrx };
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
    if (orchestratorOutcomeUnknown(error))
      await trackOrchestrator(deps, { idempotencyKey, conversation, context });
    await auditSpend(deps, { ...auditBase(ctx, p), result: "failed", message: line });
    return outcomeLine(line);
  }
  const requestId = String(accepted.detail.data.requestId);
  try {
    await trackOrchestrator(deps, { idempotencyKey, conversation, context });
    await recordSpendOnce(deps, ctx.record.confirmationId, actor, p.quoteTrx);
    await forgetBalance(deps);
  } catch (error) {
    deps.logger.error(
      { err: error, idempotencyKey },
      "orchestrator order accepted, but its bookkeeping failed",
    );
  }
  await auditSpend(deps, {
    ...auditBase(ctx, p),
    result: "ok",
    message: `orchestrator accepted (request ${requestId}, key ${idempotencyKey}); charged per delivered chunk`,
    orderIds: [requestId],
  });
  return renderOrchestratorAccepted({
    accepted: accepted.detail,
    replayed: accepted.replayed,
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    by: whoName(actor),
  });
}
