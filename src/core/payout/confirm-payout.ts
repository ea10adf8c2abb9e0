import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { OrchestratorAccepted } from "../../service/orchestrator.js";
import { approvalGate } from "../approvals/gate.js";
import type { ActionContext, ActionHandler } from "../command.js";
import { orchestratorFailureLine, orchestratorOutcomeUnknown } from "../energy/energy-errors.js";
import { outcomeLine } from "../energy/energy-render.js";
import { expectNotifications, forgetOrchestratorExpectation } from "../notifications/expectations.js";
import type { Reply } from "../reply.js";
import { auditSpend } from "../spend/record.js";
import { withResend } from "../spend/resend.js";
import { releaseSpend, reserveSpend, settleSpend } from "../spend/reservation.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { watchDenyLine } from "../watch/hooks.js";
import {
  PAYOUT_CONFIRM_KIND,
  type PayoutConfirmPayload,
  payoutConfirmPayloadSchema,
} from "./payout-payload.js";
import { renderProgress } from "./payout-progress-render.js";
import { openRun, type PayoutRun, readCancelled } from "./payout-run.js";
import { auditOf, trackPayout } from "./payout-tracking.js";

/**
 * Confirm of a payout quote: ONE orchestrator order with every accepted address as an item, its
 * idempotency key derived from the confirmation. The core stored the click as a durable intent,
 * so a double click, a retry, two instances or a crash after the ack all end in one order (the
 * service answers a repeat of the key with 208 and the first order). The run's total is held
 * against the caps atomically before anything is sent; a lost answer is looked up by the key.
 */
export const payoutConfirmAction: ActionHandler = {
  kind: PAYOUT_CONFIRM_KIND,
  role: "operator",
  durable: true,
  async run(ctx, raw) {
    const parsed = payoutConfirmPayloadSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`bad ${PAYOUT_CONFIRM_KIND} payload: ${parsed.error.message}`);
    const p = parsed.data;
    const approval = await approvalGate(ctx, { kind: "payout", quoteTrx: p.quoteTrx, payload: p });
    if (approval) return approval;
    const run = await runOf(ctx, p);
    const denied = await deniedSince(ctx, p);
    if (denied !== undefined) {
      await auditSpend(ctx.deps, { ...auditOf(run), result: "failed", message: denied });
      return outcomeLine(denied);
    }
    const spend = await reserveSpend(ctx.deps, {
      confirmationId: run.confirmationId,
      actor: run.actor,
      quoteTrx: p.quoteTrx,
      settings: ctx.deps.settings,
    });
    if (!spend.ok) {
      const line = `Not ordered: ${spend.line}`;
      await auditSpend(ctx.deps, { ...auditOf(run), result: "failed", message: line });
      return outcomeLine(line);
    }
    return placeRun(ctx, run, p);
  },
};

/** The run's record (written once per confirmation): where its progress and follow-ups go. */
function runOf(ctx: ActionContext, p: PayoutConfirmPayload): Promise<PayoutRun> {
  const { invocation, record } = ctx;
  const { messageId } = invocation;
  return openRun(ctx.deps, {
    key: requestIdempotencyKey(record.confirmationId),
    confirmationId: record.confirmationId,
    actor: invocation.actor,
    conversation: invocation.conversation,
    followUp: followUpConversation(invocation),
    ...(messageId !== undefined && { messageId }),
    items: p.items,
    options: p.options,
    quoteTrx: p.quoteTrx,
    energy: p.energy,
    leftOut: p.leftOut,
  });
}

/** An address the deny-list re-check found blocked since the quote stops the run (one line). */
async function deniedSince(ctx: ActionContext, p: PayoutConfirmPayload): Promise<string | undefined> {
  const lines = await Promise.all(p.items.map((i) => watchDenyLine(ctx.deps, i.address)));
  const blocked = lines.filter((l): l is string => l !== undefined);
  if (blocked.length === 0) return undefined;
  return `Not ordered: ${blocked.length} address${blocked.length === 1 ? " was" : "es were"} found on the deny list since the quote (${blocked[0]}). Run the payout again without ${blocked.length === 1 ? "it" : "them"}.`;
}

async function placeRun(ctx: ActionContext, run: PayoutRun, p: PayoutConfirmPayload): Promise<Reply> {
  const { deps } = ctx;
  for (const item of p.items) {
    await expectNotifications(deps, run.followUp, {
      kind: "orchestrator",
      address: item.address,
      idempotencyKey: run.key,
    });
  }
  const hasOptions = Object.keys(p.options).length > 0;
  let accepted: { replayed: boolean; detail: OrchestratorAccepted };
  try {
    accepted = await withResend(
      () =>
        deps.service.orchestrator.create({
          items: p.items.map((i) => ({ receiveAddress: i.address, amount: i.amount })),
          ...(hasOptions && { defaults: p.options }),
          idempotencyKey: run.key,
        }),
      { logger: deps.logger, endpoint: "orchestrator.create" },
    );
  } catch (error) {
    const line = orchestratorFailureLine(error);
    deps.logger.warn({ err: error, idempotencyKey: run.key }, "payout run order failed");
    if (orchestratorOutcomeUnknown(error)) {
      // It may exist after all: the poll finds it by its key, or says it was never accepted.
      await trackPayout(deps, run);
      return renderProgress({ run, cancel: null, note: line });
    }
    await releaseSpend(deps, run.confirmationId);
    for (const item of p.items)
      await forgetOrchestratorExpectation(deps.store, { address: item.address, idempotencyKey: run.key });
    await auditSpend(deps, { ...auditOf(run), result: "failed", message: line });
    return outcomeLine(line);
  }
  await deps.faults?.("after-answer");
  const { requestId } = accepted.detail.data;
  try {
    await trackPayout(deps, run);
    await settleSpend(deps, run.confirmationId, run.actor, p.quoteTrx);
  } catch (error) {
    deps.logger.error(
      { err: error, idempotencyKey: run.key },
      "payout run accepted, but its bookkeeping failed",
    );
  }
  await auditSpend(deps, {
    ...auditOf(run),
    result: "ok",
    message: `payout run accepted (request ${requestId}, key ${run.key}): ${p.items.length} addresses, ${p.energy} energy; charged per delivered chunk`,
    orderIds: [String(requestId)],
  });
  const cancel = await readCancelled(deps, run.key);
  return renderProgress({ run, cancel, requestId, replayed: accepted.replayed });
}
