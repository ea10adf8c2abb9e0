import { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import type { HostInfinityStarted, HostReply } from "../../service/host-mode.js";
import type { CoreDeps } from "../deps.js";
import { createReconciler, type ReconcileStep } from "../intents/index.js";
import { recordNeverLearned } from "../ledger/record.js";
import type { Reply } from "../reply.js";
import { type Confirmed, confirmedSchema } from "../spend/confirmed.js";
import { outcomeLine } from "../spend/outcome-render.js";
import { hostFailureLine } from "./host-errors.js";
import { lastHostEvent } from "./host-events.js";
import { type HostConfirmPayload, hostCallbackUrl, hostConfirmPayloadSchema } from "./host-payload.js";
import {
  entered,
  hostAnswerLost,
  hostAuditBase,
  hostNotStarted,
  hostStarted,
  hostStartedBefore,
  hostStartedNow,
  repeatedStartAnswer,
} from "./host-start-flow.js";

/**
 * Reconciling a Host Mode start whose answer was lost (no answer in time, a network error, a 5xx).
 * infinitystart carries no idempotency key, but the spec's state machine makes a repeat safe: an
 * address it started answers "already active" (-5) or "open order" (-6), one it did not start
 * starts now (code 0) or is refused (-2 balance, -4 not registered), and anything else (-1, no
 * answer) means ask again later. A lost `add` (which never starts anything) is sent again first.
 * Before every repeat the bot's own record of the address is read: a `host stop` after the
 * confirmation ends the reconciling (the user wanted it off), and so does a start by another
 * confirmation. The outcome is posted once, in place of the quote, and the spend settled or released.
 */
const HOST_RECONCILE_FIRST_MS = 2_000;
/** Repeats stay safe for ever; a day is where a start nobody heard of stops being the user's wish. */
const HOST_RECONCILE_WINDOW_MS = 24 * 60 * 60_000;
const HOST_RECONCILE_MAX_DELAY_MS = 10 * 60_000;

const recordSchema = confirmedSchema.extend({
  followUp: confirmedSchema.shape.conversation.optional(),
  payload: hostConfirmPayloadSchema,
  /** The call whose answer is still owed: `add` is sent again before the start. */
  step: z.enum(["add", "start"]),
  startedAt: z.number(),
  /** When the confirmation began to run: a host stop after it ends the reconciling. */
  since: z.number(),
  /** The quote's message id: the outcome replaces it. */
  replaces: z.string().optional(),
});
type HostReconcileRecord = z.infer<typeof recordSchema>;

/** The one line said while the start's outcome is not known: followed by the outcome. */
export const hostUnknownYetLine = (address: string): string =>
  `The service has not answered whether Host Mode started for ${address}, so it is not known yet. I keep asking (asking again cannot start it twice: an address already started answers that it is active) and will post the outcome here; please do not start it again meanwhile.`;

/** The line said while a lost registration is sent again: nothing has started. */
export const hostAddPendingLine = (address: string): string =>
  `The service did not answer while registering ${address} for Host Mode; nothing has started yet. I keep trying and will post the outcome here; please do not start it again meanwhile.`;

/** Hands a start with a lost answer to the reconciler (scheduling it twice is a no-op). */
export async function reconcileHostStart(
  deps: Pick<CoreDeps, "store" | "jobs" | "now">,
  who: Confirmed,
  p: HostConfirmPayload,
  options: {
    step: "add" | "start";
    since: number;
    replaces?: string | undefined;
    retryAfterMs?: number | undefined;
  },
): Promise<void> {
  const record: HostReconcileRecord = {
    ...who,
    payload: p,
    step: options.step,
    startedAt: deps.now(),
    since: options.since,
    ...(options.replaces !== undefined && { replaces: options.replaces }),
  };
  await reconciler.schedule(deps, record, options.retryAfterMs);
}

const whoOf = (record: HostReconcileRecord): Confirmed => ({
  confirmationId: record.confirmationId,
  actor: record.actor,
  conversation: record.conversation,
  ...(record.followUp && { followUp: record.followUp }),
});

/** One round: what happened meanwhile, then the owed `add` (if any) and the start, asked again. */
async function attempt(
  deps: CoreDeps,
  record: HostReconcileRecord,
  save: (record: HostReconcileRecord) => Promise<void>,
): Promise<ReconcileStep> {
  const who = whoOf(record);
  const p = record.payload;
  const settled = await settledMeanwhile(deps, who, record);
  if (settled) return { outcome: settled };
  if (record.step === "add") {
    const callbackUrl = hostCallbackUrl(deps.settings);
    try {
      await deps.service.hostMode.add({ address: p.address, ...(callbackUrl && { callbackUrl }) });
    } catch (error) {
      const again = hostAnswerLost(error) || (isServiceError(error) && error.retryable);
      if (again) return { askAgain: error };
      const line = hostFailureLine(error, p.address, "add");
      return { outcome: await entered(deps, who, hostNotStarted(deps, who, p, line, error)) };
    }
    record.step = "start";
    await save(record);
  }
  let started: HostReply<HostInfinityStarted>;
  try {
    started = await deps.service.hostMode.infinityStart(p.address);
  } catch (error) {
    const answer = repeatedStartAnswer(error);
    if (answer === "started") {
      const how =
        "the start sent for this confirmation went through (asked again, the service answers that it is already running)";
      return { outcome: await entered(deps, who, hostStartedBefore(deps, who, p, how)) };
    }
    if (answer === "not-started") {
      const line = hostFailureLine(error, p.address, "start");
      return { outcome: await entered(deps, who, hostNotStarted(deps, who, p, line, error)) };
    }
    return { askAgain: error };
  }
  deps.logger.info(
    { confirmationId: who.confirmationId, address: p.address },
    "Host Mode start reconciled: started now",
  );
  return { outcome: await entered(deps, who, hostStartedNow(deps, who, p, started)) };
}

/**
 * The address changed since the confirmation: a `host stop` (the user wants it off; the orders it
 * closed tell whether the start had gone through), a `host_paused` from the service (it ran, then
 * was stopped outside this bot) or a start by another confirmation (which counts its charge). Undefined: nothing happened meanwhile, ask the service.
 */
async function settledMeanwhile(
  deps: CoreDeps,
  who: Confirmed,
  record: HostReconcileRecord,
): Promise<Reply | undefined> {
  const p = record.payload;
  const event = await lastHostEvent(deps.store, p.address);
  if (event === null || event.at < record.since) return undefined;
  if (event.event === "started") {
    if (event.confirmationId === who.confirmationId) return undefined;
    const line = `Not started by this confirmation: Host Mode for ${p.address} was started meanwhile by another confirmation, which counts its charge. Nothing was charged for this one.`;
    return entered(deps, who, hostNotStarted(deps, who, p, line));
  }
  if (event.event === "paused") {
    // A pause means it ran: this start (or one before it) went through, and its first cycle counts.
    const why = event.reason === undefined ? "" : ` (${event.reason})`;
    const line = `Host Mode for ${p.address} had started, and the service then paused it${why} before it confirmed the start, so the bot stopped asking. A cycle delegated before the pause is charged; see the statement. To run it again: host start ${p.address}.`;
    return hostStartedThenEnded(deps, who, p, line);
  }
  if (event.ordersClosed === 0) {
    const line = `Not started: host stop ${p.address} ran before the service said whether this start went through, and found nothing running, so the bot stopped asking. Nothing was charged.`;
    return entered(deps, who, hostNotStarted(deps, who, p, line));
  }
  // The start had gone through: host stop closed its order. Its first cycle may have been charged.
  const line = `Host Mode for ${p.address} had started, and host stop ended it (${event.ordersClosed} open order${event.ordersClosed === 1 ? "" : "s"} closed) before the service confirmed the start, so the bot stopped asking. A cycle delegated before the stop is charged; see the statement.`;
  return hostStartedThenEnded(deps, who, p, line);
}

/** The start had gone through and was ended since: its first cycle counts toward the caps. */
async function hostStartedThenEnded(
  deps: CoreDeps,
  who: Confirmed,
  p: HostReconcileRecord["payload"],
  line: string,
): Promise<Reply> {
  // Its hold (the first cycle's quote) stays until a cycle callback says what was charged.
  return entered(deps, who, { ...hostStarted(who, p, line), reply: outcomeLine(line) });
}

/** A day of no answer: the bot stops asking and says what the user can do. */
async function expire(deps: CoreDeps, record: HostReconcileRecord): Promise<Reply> {
  // The hold stays on the daily total: Host Mode may run.
  const p = record.payload;
  const line = `The service did not say within 24 hours whether Host Mode started for ${p.address}, so the bot stopped asking. If it should not run, host stop ${p.address} (harmless when it is not running); to be sure it runs, host start ${p.address} again (an active address answers that it is already active).`;
  await recordNeverLearned(deps, {
    kind: "host_start",
    confirmationId: record.confirmationId,
    audit: { ...hostAuditBase(record, p), result: "failed", message: line },
  });
  return outcomeLine(line);
}

const reconciler = createReconciler({
  kind: "reconcile-host-start",
  recordPrefix: "reconcile-host",
  schema: recordSchema,
  firstMs: HOST_RECONCILE_FIRST_MS,
  maxDelayMs: HOST_RECONCILE_MAX_DELAY_MS,
  windowMs: HOST_RECONCILE_WINDOW_MS,
  attempt,
  expire,
  stillUnknown: (record, error) => ({
    fields: { step: record.step, err: error },
    message: "Host Mode start outcome still unknown; asking again",
  }),
});

export const createReconcileHostStartHandler = reconciler.createHandler;
