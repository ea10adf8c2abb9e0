import { isServiceError } from "../../service/errors.js";
import { order5mIdempotencyKey } from "../../service/idempotency.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import type { CoreDeps } from "../deps.js";
import type { KnownOutcome } from "../ledger/placed.js";
import { rememberOrigin } from "../origins.js";
import type { Reply } from "../reply.js";
import { learnFromOrder } from "../spend/activation-bound.js";
import { type Confirmed, whoName } from "../spend/confirmed.js";
import { autoWatch } from "../watch/index.js";
import { watchDelivery } from "./delivery-watch.js";
import { auditBase, type EnergyConfirmPayload } from "./energy-payload.js";
import { renderOrder5mResult } from "./energy-render.js";

/**
 * One 5-minute order of a confirmation, shared by the Confirm and by the reconciler that asks
 * again when the first answer was lost: the key, what "not known" means, and what a placed order
 * leaves behind.
 */
export const order5mKeyOf = (confirmationId: string, p: EnergyConfirmPayload): string =>
  order5mIdempotencyKey({ confirmationId, period: "5m", receiveAddress: p.address, amount: p.amount });

/**
 * Failures after which the order may exist: no answer, "still processing", an unreadable answer,
 * an internal error. Asking again with the same key tells (the service keeps it 24 hours).
 */
export function order5mOutcomeUnknown(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === "timeout" || error.kind === "network" || error.kind === "invalid_reply") return true;
  if (error.code === "duplicate_request_processing") return true;
  return (error.httpStatus ?? 0) >= 500 && error.code !== 5003;
}

/** What a placed order came to, for the ledger: charged its `paidTRX`. */
export const order5mPlaced = (
  who: Confirmed,
  p: EnergyConfirmPayload,
  outcome: Order5mOutcome,
): KnownOutcome => ({
  result: "ordered",
  chargedTrx: outcome.result.paidTRX,
  orderIds: [outcome.result.orderId],
  detail: `${outcome.replayed ? "(repeat answered from the service's cache) " : ""}paid ${outcome.result.paidTRX} TRX: ${outcome.message}`,
  audit: auditBase(who, p),
  energy: p.amount,
});

/** An order the service refused: nothing was charged, the hold is given back. */
export const order5mFailed = (who: Confirmed, p: EnergyConfirmPayload, line: string): KnownOutcome => ({
  result: "failed",
  chargedTrx: "0",
  orderIds: [],
  detail: line,
  audit: auditBase(who, p),
});

/**
 * The bookkeeping of a placed order (its ledger entry is the caller's: the pipeline, or the
 * reconciler). The order exists whatever happens here, so a failure is logged and never turned
 * into an error line that would make the user order again.
 */
export async function afterOrder5m(
  deps: CoreDeps,
  who: Confirmed,
  p: EnergyConfirmPayload,
  outcome: Order5mOutcome,
): Promise<void> {
  const { result } = outcome;
  const conversation = who.followUp ?? who.conversation;
  try {
    await learnFromOrder(deps.store, {
      address: p.address,
      energyTrx: p.quoteTrx,
      paidTrx: result.paidTRX,
      activationHash: result.activationHash,
    });
    await rememberOrigin(deps.store, "order", result.orderId, conversation);
    // The activation webhook names its own order id and, as `source`, this order's id; its hash
    // is remembered too, so the listener can route it either way.
    if (result.activationHash) await rememberOrigin(deps.store, "order", result.activationHash, conversation);
    await watchDelivery(deps, { orderId: result.orderId, address: p.address, conversation });
    await autoWatch(deps, conversation, p.address, who.actor);
  } catch (error) {
    deps.logger.error(
      { err: error, orderId: result.orderId },
      "energy order placed, but its bookkeeping failed",
    );
  }
}

export const renderPlaced = (
  deps: Pick<CoreDeps, "settings">,
  who: Confirmed,
  p: EnergyConfirmPayload,
  outcome: Order5mOutcome,
): Reply =>
  renderOrder5mResult({
    outcome,
    address: p.address,
    amount: p.amount,
    quoteTrx: p.quoteTrx,
    explorerTxUrl: deps.settings.explorerTxUrl,
    by: whoName(who.actor),
  });
