import type { ActionRecord } from "../actions.js";
import type { ActionHandler } from "../command.js";
import type { CoreDeps, IntentTimings } from "../deps.js";
import { reportError } from "../errors.js";
import { actorKey, conversationKey, type Invocation } from "../invocation.js";
import type { PollAnswer } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { type Reply, text } from "../reply.js";
import type { Role } from "../roles.js";
import {
  DEFAULT_INTENT_TIMINGS,
  DEFAULT_MAX_LOCAL_RUNS,
  handoverJobId,
  type Intent,
  intentDedupKey,
  isFirstRun,
  isPosted,
  type Lease,
  markPosted,
  noteOpen,
  readIntent,
  readOutcome,
  recoverJobId,
  saveOutcome,
  takeLease,
} from "./intent.js";

/**
 * Durable actions (ActionHandler.durable): a Confirm is an intent, not a function call.
 *
 *  click → checks → recovery job scheduled (jobId per confirmation) → claim + intent (one SET NX)
 *        → the platform is acknowledged → run under a lease → outcome stored → reply delivered
 *        → posted mark, recovery job dropped.
 *
 * A process that dies anywhere after the claim leaves the intent and the delayed recovery job in
 * Redis; whichever instance picks the job up runs the intent again (spending flows derive their
 * idempotency keys from the confirmation, so the service answers a repeat with the first order)
 * or, when the outcome is already stored, only posts it, through the durable notifier with a dedup
 * key: one outcome message per confirmation.
 */
type ActionInvocation = Extract<Invocation, { kind: "action" }>;
type Deps = CoreDeps;

export const timingsOf = (deps: Pick<CoreDeps, "settings">): IntentTimings =>
  deps.settings.intents ?? DEFAULT_INTENT_TIMINGS;

/** Before the claim: the recovery job exists whenever the intent does. Returns the claim value. */
export async function prepareIntent(
  deps: Deps,
  record: ActionRecord,
  invocation: ActionInvocation,
  role: Role,
): Promise<string> {
  const { confirmationId: cid } = record;
  const { recoverAfterMs, deadRunLookMs = recoverAfterMs } = timingsOf(deps);
  const deliverBy = deps.now() + recoverAfterMs;
  await deps.jobs.schedule(
    { kind: "recover-intent", confirmationId: cid, conversation: invocation.conversation, deliverBy },
    { delayMs: Math.min(deadRunLookMs, recoverAfterMs), jobId: recoverJobId(cid) },
  );
  // Before the claim too: an instance that starts finds it (recover-at-start.ts).
  await noteOpen(deps.store, cid, deps.now());
  const intent: Intent = {
    v: 1,
    confirmationId: cid,
    kind: record.kind,
    payload: record.payload,
    record,
    invocation,
    role,
    claimedAt: deps.now(),
  };
  return JSON.stringify(intent);
}

export const maxLocalRunsOf = (deps: Pick<CoreDeps, "settings">): number =>
  timingsOf(deps).maxLocalRuns ?? DEFAULT_MAX_LOCAL_RUNS;

export const HANDED_OVER_LINE =
  "Confirmed. Many confirmations are being carried out right now: this one is queued, and its outcome will take this message's place.";

/**
 * Too many confirmations running in this process: this one becomes a job due now, run by
 * whichever instance has room (the same path as a recovery, so it is carried out once). The
 * click is answered at once; the outcome later replaces that answer.
 */
export async function handOverIntent(deps: Deps, intent: Intent): Promise<Reply> {
  const { confirmationId, invocation } = intent;
  await deps.jobs.schedule(
    { kind: "recover-intent", confirmationId, conversation: invocation.conversation, handover: true },
    { delayMs: 0, jobId: handoverJobId(confirmationId) },
  );
  deps.logger.info(
    { confirmationId, action: intent.kind, conversation: conversationKey(invocation.conversation) },
    "confirmation handed to the job queue: too many running here",
  );
  return { summary: HANDED_OVER_LINE, blocks: [text(HANDED_OVER_LINE)], visibility: "public" };
}

/** The run's reply as every failure becomes one line that replaces the button's message. */
async function runHandler(deps: Deps, handler: ActionHandler, intent: Intent, recovered: boolean) {
  const context = {
    actor: actorKey(intent.invocation.actor),
    conversation: conversationKey(intent.invocation.conversation),
    action: intent.kind,
    confirmationId: intent.confirmationId,
    recovered,
  };
  try {
    const ctx = { invocation: intent.invocation, role: intent.role, deps, record: intent.record, recovered };
    return { reply: await handler.run(ctx, intent.payload), failed: false };
  } catch (error) {
    const line = reportError(deps.logger, error, context);
    const reply: Reply = { summary: line, blocks: [text(line)], visibility: "public" };
    return { reply, failed: true };
  }
}

export interface DurableRun {
  reply: Reply;
  failed: boolean;
  /** Held until the reply is delivered (or lapses, so the recovery job posts it). */
  lease: Lease;
}

/**
 * Runs the intent under its lease, or returns its stored outcome when a run already finished.
 * Undefined while another runner holds the lease.
 */
export async function runIntent(
  deps: Deps,
  handler: ActionHandler,
  intent: Intent,
): Promise<DurableRun | undefined> {
  const cid = intent.confirmationId;
  const lease = await takeLease(deps.store, cid, timingsOf(deps).leaseMs);
  if (lease === undefined) return undefined;
  try {
    const stored = await readOutcome(deps.store, cid);
    if (stored !== undefined) return { reply: stored, failed: false, lease };
    const recovered = !(await isFirstRun(deps.store, cid));
    const { reply, failed } = await runHandler(deps, handler, intent, recovered);
    await saveOutcome(deps.store, cid, reply);
    return { reply, failed, lease };
  } catch (error) {
    await lease.release().catch(() => {});
    throw error;
  }
}

/**
 * The reply reached the conversation: the recovery job has nothing left to do. When the outcome
 * changed meanwhile (a reconciler learned it before this "not known yet" reply landed, as on a
 * slow platform), the outcome is posted after it, in its place, so the older line is not the last word.
 */
export async function intentDelivered(
  deps: Deps,
  cid: string,
  lease: Lease,
  delivered: Reply,
): Promise<void> {
  await markPosted(deps.store, cid);
  await lease.release();
  await deps.jobs.cancel?.(recoverJobId(cid)).catch(() => {});
  const outcome = await readOutcome(deps.store, cid);
  if (outcome === undefined || outcome.summary === delivered.summary) return;
  const intent = await readIntent(deps.store, cid);
  if (intent === undefined) return;
  const { messageId } = intent.invocation;
  await deps.notifier.post(
    intent.invocation.conversation,
    { ...outcome, replacesOriginal: false, ...(messageId !== undefined && { replaces: messageId }) },
    intentDedupKey(cid),
  );
}

type RecoverJob = Extract<TrackedJob, { kind: "recover-intent" }>;

/** The recovery job: carries out or posts an intent whose process died. */
export function createRecoverIntentHandler(
  deps: Deps,
  handlers: ReadonlyMap<string, ActionHandler>,
): (job: RecoverJob) => Promise<PollAnswer> {
  return async (job) => {
    const cid = job.confirmationId;
    if (await isPosted(deps.store, cid)) return { done: true };
    const intent = await readIntent(deps.store, cid);
    // No intent: the group was claimed by a non-durable button (Cancel), or never claimed.
    if (intent === undefined) return { done: true };
    const handler = handlers.get(intent.kind);
    if (handler === undefined) throw new Error(`no handler for durable action kind "${intent.kind}"`);
    // Known but maybe still on its way through a slow platform: the instance that holds it gets until deliverBy.
    const waitMs = (job.deliverBy ?? 0) - deps.now();
    if (waitMs > 0 && (await readOutcome(deps.store, cid)) !== undefined)
      return { again: true, delayMs: waitMs };
    const run = await runIntent(deps, handler, intent);
    // A live run holds the lease (renewed), a dead one's lapses within leaseMs: look again soon.
    if (run === undefined) return { again: true, delayMs: Math.max(250, timingsOf(deps).leaseMs / 4) };
    try {
      if (await isPosted(deps.store, cid)) return { done: true };
      if (job.handover !== true)
        deps.logger.warn(
          { confirmationId: cid, action: intent.kind, conversation: conversationKey(job.conversation) },
          "a confirmed action's outcome was not delivered by the instance that ran it; posting it now",
        );
      // In place of the message that carried the button (the quote, its buttons dead), so a
      // reply the dead process had already put there is edited, not repeated.
      const { messageId } = intent.invocation;
      await deps.notifier.post(
        intent.invocation.conversation,
        { ...run.reply, replacesOriginal: false, ...(messageId !== undefined && { replaces: messageId }) },
        intentDedupKey(cid),
      );
      await markPosted(deps.store, cid);
      return { done: true };
    } finally {
      await run.lease.release().catch(() => {});
    }
  };
}
