import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import type { CoreDeps } from "../deps.js";
import { createReconciler } from "../intents/index.js";
import { recordPlaced } from "../ledger/placed.js";
import { recordNeverLearned } from "../ledger/record.js";
import { type Confirmed, confirmedSchema } from "../spend/confirmed.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { order5mFailureLine } from "./energy-errors.js";
import { auditBase, type EnergyConfirmPayload, energyConfirmPayloadSchema } from "./energy-payload.js";
import {
  afterOrder5m,
  order5mFailed,
  order5mKeyOf,
  order5mOutcomeUnknown,
  order5mPlaced,
  renderPlaced,
} from "./order5m-flow.js";

/** The reconciler learned the outcome: it enters it in the ledger as the Confirm would have. */
const entryOf = (who: Confirmed) => ({ kind: "energy" as const, confirmationId: who.confirmationId });

/**
 * Reconciling a 5-minute order whose outcome is not known (no answer in time, "still
 * processing", an internal error). order5m has no read endpoint, but a repeat with the same
 * idempotency key is answered with the first order (208) for 24 hours, or places the order once
 * when the first never arrived. So the reconciler asks again, with backoff, until the answer is
 * known; then it posts the outcome, settles the spend (or releases its hold) and audits it.
 * This job and the Confirm are the only senders of the POST: the transport never resends it.
 */
const RECONCILE_FIRST_MS = 2_000;
/** Inside the service's 24-hour key lifetime, so a late repeat can never become a second order. */
const RECONCILE_WINDOW_MS = 23 * 60 * 60_000;
const RECONCILE_MAX_DELAY_MS = 10 * 60_000;

const recordSchema = confirmedSchema.extend({
  payload: energyConfirmPayloadSchema,
  startedAt: z.number(),
  /** The quote's message id: the outcome replaces it (and the "not known yet" line shown there). */
  replaces: z.string().optional(),
});

type ReconcileRecord = z.infer<typeof recordSchema>;

const whoOf = (record: ReconcileRecord): Confirmed => ({
  confirmationId: record.confirmationId,
  actor: record.actor,
  conversation: record.conversation,
});

const reconciler = createReconciler({
  kind: "reconcile-order5m",
  recordPrefix: "reconcile-order5m",
  schema: recordSchema,
  firstMs: RECONCILE_FIRST_MS,
  maxDelayMs: RECONCILE_MAX_DELAY_MS,
  windowMs: RECONCILE_WINDOW_MS,
  async attempt(deps, record) {
    const who = whoOf(record);
    const p = record.payload;
    let outcome: Order5mOutcome;
    try {
      outcome = await deps.service.order5m.create({
        amount: p.amount,
        receiveAddress: p.address,
        idempotencyKey: order5mKeyOf(who.confirmationId, p),
      });
    } catch (error) {
      // A 429 or 5003 refuses only this repeat: the first send may still have been placed.
      const busy = isServiceError(error) && (error.httpStatus === 429 || error.code === 5003);
      if (order5mOutcomeUnknown(error) || busy) return { askAgain: error };
      const line = order5mFailureLine(error);
      deps.logger.warn(
        { err: error, confirmationId: who.confirmationId },
        "energy order reconciled: not placed",
      );
      await recordPlaced(deps, entryOf(who), order5mFailed(who, p, line));
      return { outcome: outcomeLine(line) };
    }
    await recordPlaced(deps, entryOf(who), order5mPlaced(who, p, outcome));
    await afterOrder5m(deps, who, p, outcome);
    deps.logger.info(
      { confirmationId: who.confirmationId, orderId: outcome.result.orderId },
      "energy order reconciled",
    );
    return { outcome: renderPlaced(deps, who, p, outcome) };
  },
  async expire(deps, record) {
    // The key is about to expire: a later repeat could place a second order, so stop asking. The
    // hold stays on the daily total: the order may exist.
    const p = record.payload;
    const line = `The service never confirmed the energy order for ${p.address} within 23 hours of asking with its idempotency key, so the bot stopped asking to avoid a second order. Check the balance and the statement before ordering again.`;
    const who = whoOf(record);
    await recordNeverLearned(deps, {
      kind: "energy",
      confirmationId: who.confirmationId,
      audit: { ...auditBase(who, p), result: "failed", message: line },
    });
    return outcomeLine(line);
  },
  stillUnknown: () => ({ fields: {}, message: "order outcome still unknown; asking again" }),
});

/** Hands an order with an unknown outcome to the reconciler (scheduling it twice is a no-op). */
export function reconcileOrder5m(
  deps: Pick<CoreDeps, "store" | "jobs" | "now">,
  who: Confirmed,
  p: EnergyConfirmPayload,
  retryAfterMs?: number,
  replaces?: string,
): Promise<void> {
  const record = { ...who, payload: p, startedAt: deps.now(), ...(replaces !== undefined && { replaces }) };
  return reconciler.schedule(deps, record, retryAfterMs);
}

/** The one line of an outcome that is not known yet: said once, followed by the outcome. */
export const UNKNOWN_YET_LINE =
  "The service has not confirmed this order yet, so it is not known yet whether it was placed. I keep asking with the same idempotency key (a repeat can never charge twice) and will post the outcome here; please do not order again meanwhile.";

export const createReconcileOrder5mHandler = reconciler.createHandler;
