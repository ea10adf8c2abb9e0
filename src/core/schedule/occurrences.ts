import { createHash } from "node:crypto";
import type { ActionRecord } from "../action-record.js";
import { CLAIM_KEY } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import { handoverJobId, INTENT_TTL_MS, type Intent, isPosted } from "../intents/index.js";
import { actorKey } from "../invocation.js";
import type { PollAnswer } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { publicReply, text } from "../reply.js";
import { nextOccurrence, whenText } from "./recurrence.js";
import { readOrder, readState, type StandingOrder, saveLast, timingOf } from "./standing-orders.js";

/**
 * Each occurrence of a standing order is one delayed job on the `tracked` queue whose id is the
 * occurrence (`schedule-run:<id>:<ms>`): every instance and every restart that plans it plans the
 * same job, and Redis keeps it while no instance is up. The job plans the next occurrence first,
 * then hands the run to the durable Confirm path (src/core/intents/): the run is an intent claimed
 * with SET NX under a confirmation id derived from the occurrence, carried out by the
 * `recover-intent` job like a click handed over, its outcome posted once in the schedule's thread.
 * A run the job reaches more than OPS_SCHEDULE_GRACE_MIN late (no instance was up) is skipped
 * with one message.
 */
export const SCHEDULE_RUN_KIND = "schedule.run";

type RunJob = Extract<TrackedJob, { kind: "schedule-run" }>;
type Deps = CoreDeps;

export const runJobId = (id: string, occurrence: number): string => `schedule-run:${id}:${occurrence}`;

/** The confirmation id of one occurrence: every instance derives the same one (22 URL-safe chars). */
export const runConfirmationId = (id: string, occurrence: number): string =>
  createHash("sha256").update(`opsbot.schedule-run.v1:${id}:${occurrence}`).digest("base64url").slice(0, 22);

/** Plans the first occurrence after `after` (default now); answers it, or undefined when none is left. */
export async function planNext(
  deps: Deps,
  order: StandingOrder,
  after = deps.now(),
): Promise<number | undefined> {
  const next = nextOccurrence(timingOf(order), after);
  if (next === undefined) return undefined;
  await deps.jobs.schedule(
    { kind: "schedule-run", scheduleId: order.id, occurrence: next },
    { delayMs: Math.max(0, next - deps.now()), jobId: runJobId(order.id, next) },
  );
  return next;
}

/** The `schedule-run` job of the tracked queue (tests drive it directly with their own clock). */
export function createScheduleRunHandler(deps: Deps): (job: RunJob) => Promise<PollAnswer> {
  return async (job) => {
    const order = await readOrder(deps.store, job.scheduleId);
    if (!order) return { done: true };
    const state = await readState(deps.store, order.id);
    // Paused: the chain ends here; `schedule resume` plans the next occurrence from then.
    if (state?.state !== "active") return { done: true };
    const now = deps.now();
    await planNext(deps, order, Math.max(job.occurrence, now));
    if (now - job.occurrence > deps.settings.scheduleGraceMs) {
      await skipMissed(deps, order, job.occurrence);
      return { done: true };
    }
    await startRun(deps, order, job.occurrence);
    return { done: true };
  };
}

/** Too late: one message, whichever instance (or retry) gets here. */
async function skipMissed(deps: Deps, order: StandingOrder, occurrence: number): Promise<void> {
  const cid = runConfirmationId(order.id, occurrence);
  if (!(await deps.store.setIfNotExists(`schedule-missed:${cid}`, "1", INTENT_TTL_MS))) return;
  const lateMin = Math.round((deps.now() - occurrence) / 60_000);
  const graceMin = Math.round(deps.settings.scheduleGraceMs / 60_000);
  const next = nextOccurrence(timingOf(order), deps.now());
  const line = `Standing order ${order.id}: the run of ${whenText(occurrence)} was missed (no instance of the bot was up) and is skipped, ${lateMin} minutes late, beyond the ${graceMin}-minute grace (OPS_SCHEDULE_GRACE_MIN). Nothing was ordered.${next === undefined ? "" : ` Next run: ${whenText(next)}.`}`;
  await saveLast(deps.store, order.id, { occurrence, at: deps.now(), outcome: "missed, skipped" });
  await deps.notifier.post(order.thread, publicReply(line, [text(line)]), `schedule-missed:${cid}`);
  deps.logger.warn(
    { scheduleId: order.id, occurrence, lateMin },
    "standing order run missed beyond the grace",
  );
}

/**
 * The run as a durable intent: claimed once (SET NX of the claim mark, its value the intent), then
 * handed to the `recover-intent` job, which carries it out under a lease and posts its outcome
 * once. A repeat of this step (a retried job, another instance) finds the claim and only makes
 * sure the job exists.
 */
async function startRun(deps: Deps, order: StandingOrder, occurrence: number): Promise<void> {
  const cid = runConfirmationId(order.id, occurrence);
  if (await isPosted(deps.store, cid)) return;
  const now = deps.now();
  const token = `schedule-${order.id}`;
  const record: ActionRecord = {
    token,
    kind: SCHEDULE_RUN_KIND,
    payload: { scheduleId: order.id, occurrence },
    role: "operator",
    conversation: order.thread,
    createdBy: actorKey(order.createdBy),
    confirmationId: cid,
    createdAt: now,
    expiresAt: now + INTENT_TTL_MS,
  };
  const intent: Intent = {
    v: 1,
    confirmationId: cid,
    kind: SCHEDULE_RUN_KIND,
    payload: record.payload,
    record,
    invocation: { kind: "action", actor: order.createdBy, conversation: order.thread, token },
    role: "operator",
    claimedAt: now,
  };
  const claimed = await deps.store.setIfNotExists(CLAIM_KEY(cid), JSON.stringify(intent), INTENT_TTL_MS);
  await deps.jobs.schedule(
    { kind: "recover-intent", confirmationId: cid, conversation: order.thread, handover: true },
    { delayMs: 0, jobId: handoverJobId(cid) },
  );
  if (claimed)
    deps.logger.info({ scheduleId: order.id, occurrence, confirmationId: cid }, "standing order run started");
}
