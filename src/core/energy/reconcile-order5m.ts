import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { saveOutcome } from "../intents/index.js";
import { type PollAnswer, pollDelayMs } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import type { Reply } from "../reply.js";
import { type Confirmed, confirmedSchema } from "../spend/confirmed.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { auditSpend } from "../spend/record.js";
import { releaseSpend } from "../spend/reservation.js";
import { order5mFailureLine } from "./energy-errors.js";
import { auditBase, type EnergyConfirmPayload, energyConfirmPayloadSchema } from "./energy-payload.js";
import { afterOrder5m, order5mKeyOf, order5mOutcomeUnknown, renderPlaced } from "./order5m-flow.js";

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
const RECORD_TTL_MS = 25 * 60 * 60_000;

const recordSchema = confirmedSchema.extend({
  payload: energyConfirmPayloadSchema,
  startedAt: z.number(),
  /** The quote's message id: the outcome replaces it (and the "not known yet" line shown there). */
  replaces: z.string().optional(),
});

const recordKey = (cid: string) => `reconcile-order5m:${cid}`;
const reconcileJobId = (cid: string) => `reconcile-order5m:${cid}`;
const dedupKey = (cid: string) => `reconciled:${cid}`;

/** Hands an order with an unknown outcome to the reconciler (scheduling it twice is a no-op). */
export async function reconcileOrder5m(
  deps: Pick<CoreDeps, "store" | "jobs" | "now">,
  who: Confirmed,
  p: EnergyConfirmPayload,
  retryAfterMs?: number,
  replaces?: string,
): Promise<void> {
  const record = { ...who, payload: p, startedAt: deps.now(), ...(replaces !== undefined && { replaces }) };
  await setJson(deps.store, recordKey(who.confirmationId), record, RECORD_TTL_MS);
  await deps.jobs.schedule(
    { kind: "reconcile-order5m", confirmationId: who.confirmationId, conversation: who.conversation },
    { delayMs: Math.max(RECONCILE_FIRST_MS, retryAfterMs ?? 0), jobId: reconcileJobId(who.confirmationId) },
  );
}

/** The one line of an outcome that is not known yet: said once, followed by the outcome. */
export const UNKNOWN_YET_LINE =
  "The service has not confirmed this order yet, so it is not known yet whether it was placed. I keep asking with the same idempotency key (a repeat can never charge twice) and will post the outcome here; please do not order again meanwhile.";

type ReconcileJob = Extract<TrackedJob, { kind: "reconcile-order5m" }>;

export function createReconcileOrder5mHandler(deps: CoreDeps): (job: ReconcileJob) => Promise<PollAnswer> {
  return async (job) => {
    const cid = job.confirmationId;
    const record = await getJson(deps.store, recordKey(cid), recordSchema);
    if (!record) return { done: true };
    const who: Confirmed = { confirmationId: cid, actor: record.actor, conversation: record.conversation };
    const p = record.payload;
    let outcome: Order5mOutcome;
    try {
      outcome = await deps.service.order5m.create({
        amount: p.amount,
        receiveAddress: p.address,
        idempotencyKey: order5mKeyOf(cid, p),
      });
    } catch (error) {
      // A 429 or 5003 refuses only this repeat: the first send may still have been placed.
      const busy = isServiceError(error) && (error.httpStatus === 429 || error.code === 5003);
      if (order5mOutcomeUnknown(error) || busy) return askAgain(deps, job, record, error, who);
      return finish(deps, who, record, order5mFailureLine(error), error);
    }
    await afterOrder5m(deps, who, p, outcome);
    await post(deps, who, record.replaces, renderPlaced(deps, who, p, outcome));
    await deps.store.del(recordKey(cid));
    deps.logger.info({ confirmationId: cid, orderId: outcome.result.orderId }, "energy order reconciled");
    return { done: true };
  };
}

type ReconcileRecord = z.infer<typeof recordSchema>;

/** The outcome, once per confirmation, in place of the quote when its message is known. */
async function post(deps: CoreDeps, who: Confirmed, replaces: string | undefined, reply: Reply) {
  // The confirmation's outcome from now on: a recovery that posts it later never says "not known yet".
  await saveOutcome(deps.store, who.confirmationId, reply);
  const outcome = replaces === undefined ? reply : { ...reply, replaces };
  await deps.notifier.post(who.conversation, outcome, dedupKey(who.confirmationId));
}

async function askAgain(
  deps: CoreDeps,
  job: ReconcileJob,
  record: ReconcileRecord,
  error: unknown,
  who: Confirmed,
): Promise<PollAnswer> {
  const { startedAt, payload: p } = record;
  const planned = pollDelayMs(job.attempt ?? 0, {
    firstMs: RECONCILE_FIRST_MS,
    maxMs: RECONCILE_MAX_DELAY_MS,
    totalMs: RECONCILE_WINDOW_MS,
  });
  const hinted = isServiceError(error) ? (error.retryAfterMs ?? 0) : 0;
  const delayMs = planned === null ? null : Math.max(planned, hinted);
  if (delayMs !== null && deps.now() - startedAt + delayMs < RECONCILE_WINDOW_MS) {
    deps.logger.info(
      { confirmationId: who.confirmationId, delayMs },
      "order outcome still unknown; asking again",
    );
    return { again: true, delayMs };
  }
  // The key is about to expire: a later repeat could place a second order, so stop asking. The
  // hold stays on the daily total: the order may exist.
  const line = `The service never confirmed the energy order for ${p.address} within 23 hours of asking with its idempotency key, so the bot stopped asking to avoid a second order. Check the balance and the statement before ordering again.`;
  await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
  await post(deps, who, record.replaces, outcomeLine(line));
  return { done: true };
}

async function finish(
  deps: CoreDeps,
  who: Confirmed,
  record: ReconcileRecord,
  line: string,
  error: unknown,
): Promise<PollAnswer> {
  const p = record.payload;
  deps.logger.warn({ err: error, confirmationId: who.confirmationId }, "energy order reconciled: not placed");
  await releaseSpend(deps, who.confirmationId);
  await auditSpend(deps, { ...auditBase(who, p), result: "failed", message: line });
  await post(deps, who, record.replaces, outcomeLine(line));
  await deps.store.del(recordKey(who.confirmationId));
  return { done: true };
}
