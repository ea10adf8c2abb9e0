import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { OrchestratorAccepted } from "../../service/orchestrator.js";
import type { ActionContext } from "../command.js";
import { expectNotifications, forgetOrchestratorExpectation } from "../notices/expectations.js";
import type { Confirmed } from "../spend/confirmed.js";
import { priceFellLine } from "../spend/decide-at-confirm.js";
import type { Placed } from "../spend/definition.js";
import { orchestratorFailureLine, orchestratorOutcomeUnknown } from "../spend/order-errors.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { withResend } from "../spend/resend.js";
import { autoWatchMany } from "../watch/index.js";
import type { PayoutConfirmPayload } from "./payout-payload.js";
import { renderProgress } from "./payout-progress-render.js";
import { openRun, type PayoutRun, readCancelled } from "./payout-run.js";
import { auditOf, trackPayout } from "./payout-tracking.js";

/**
 * Placing a payout run the decision at Confirm allowed (src/core/spend/pipeline.ts decides; the
 * definition is payout-spend.ts): ONE orchestrator order with every accepted address as an item,
 * its idempotency key derived from the confirmation. The core stored the click as a durable
 * intent, so a double click, a retry, two instances or a crash after the ack all end in one order
 * (the service answers a repeat of the key with 208 and the first order). A lost answer is looked
 * up by the key.
 */
/** The run's record (written once per confirmation): where its progress and follow-ups go. */
function runOf(ctx: ActionContext, who: Confirmed, p: PayoutConfirmPayload): Promise<PayoutRun> {
  const { messageId } = ctx.invocation;
  return openRun(ctx.deps, {
    key: requestIdempotencyKey(who.confirmationId),
    confirmationId: who.confirmationId,
    actor: who.actor,
    conversation: who.conversation,
    followUp: who.followUp ?? who.conversation,
    ...(messageId !== undefined && { messageId }),
    items: p.items,
    options: p.options,
    quoteTrx: p.quoteTrx,
    ...(p.itemTrx !== undefined && { itemTrx: p.itemTrx }),
    energy: p.energy,
    leftOut: p.leftOut,
  });
}

/**
 * Places the run the decision allowed (its amount reserved): one orchestrator order. `fellByTrx`:
 * the price fell since the quote, said in the progress message.
 */
export async function placePayout(
  ctx: ActionContext,
  who: Confirmed,
  p: PayoutConfirmPayload,
  fellByTrx?: string,
): Promise<Placed> {
  const run = await runOf(ctx, who, p);
  const note = fellByTrx === undefined ? undefined : priceFellLine(fellByTrx, p.quoteTrx, "ordered");
  return placeRun(ctx, run, p, note);
}

/** What the orchestrator will report: its webhooks wait for the run's origins instead of the alert channel. */
async function expectRun(deps: ActionContext["deps"], run: PayoutRun): Promise<void> {
  for (const item of run.items) {
    await expectNotifications(deps, run.followUp, {
      kind: "orchestrator",
      address: item.address,
      idempotencyKey: run.key,
    });
  }
}

/** The one order of the run; resent only with its key (the service answers a repeat with 208). */
function orderRun(
  deps: ActionContext["deps"],
  run: PayoutRun,
  p: PayoutConfirmPayload,
): Promise<{ replayed: boolean; detail: OrchestratorAccepted }> {
  const hasOptions = Object.keys(p.options).length > 0;
  return withResend(
    () =>
      deps.service.orchestrator.create({
        items: p.items.map((i) => ({ receiveAddress: i.address, amount: i.amount })),
        ...(hasOptions && { defaults: p.options }),
        idempotencyKey: run.key,
      }),
    { logger: deps.logger, endpoint: "orchestrator.create" },
  );
}

/** No order: a known refusal gives the hold back; an unknown outcome is looked up by the key. */
async function notPlaced(ctx: ActionContext, run: PayoutRun, error: unknown): Promise<Placed> {
  const { deps } = ctx;
  const line = orchestratorFailureLine(error);
  deps.logger.warn({ err: error, idempotencyKey: run.key }, "payout run order failed");
  if (orchestratorOutcomeUnknown(error)) {
    // It may exist after all: the poll finds it by its key, or says it was never accepted.
    await trackPayout(deps, run);
    return { result: "pending", reply: renderProgress({ run, cancel: null, note: line }) };
  }
  for (const item of run.items)
    await forgetOrchestratorExpectation(deps.store, { address: item.address, idempotencyKey: run.key });
  return {
    result: "failed",
    chargedTrx: "0",
    orderIds: [],
    detail: line,
    audit: auditOf(run),
    addresses: run.items.length,
    reply: outcomeLine(line),
  };
}

async function placeRun(
  ctx: ActionContext,
  run: PayoutRun,
  p: PayoutConfirmPayload,
  note?: string,
): Promise<Placed> {
  const { deps } = ctx;
  await expectRun(deps, run);
  let accepted: { replayed: boolean; detail: OrchestratorAccepted };
  try {
    accepted = await orderRun(deps, run, p);
  } catch (error) {
    return notPlaced(ctx, run, error);
  }
  await deps.faults?.("after-answer");
  const { requestId } = accepted.detail.data;
  // The hold stays until the run is final: its last poll settles it with what was charged.
  try {
    await trackPayout(deps, run);
    // Watched where the run's follow-ups go, as a single order's address is.
    await autoWatchMany(
      deps,
      run.followUp,
      p.items.map((i) => i.address),
      run.actor,
    );
  } catch (error) {
    deps.logger.error(
      { err: error, idempotencyKey: run.key },
      "payout run accepted, but its bookkeeping failed",
    );
  }
  const cancel = await readCancelled(deps, run.key);
  // Charged per delivered chunk: the run's last poll enters the charge (payout-tracking.ts).
  return {
    result: "accepted",
    orderIds: [String(requestId)],
    detail: `payout run accepted (request ${requestId}, key ${run.key}): ${p.items.length} addresses, ${p.energy} energy; charged per delivered chunk`,
    audit: auditOf(run),
    reply: renderProgress({
      run,
      cancel,
      requestId,
      replayed: accepted.replayed,
      ...(note && { priceNote: note }),
    }),
  };
}
