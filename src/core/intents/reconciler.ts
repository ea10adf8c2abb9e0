import type { z } from "zod";
import { isServiceError } from "../../service/errors.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { type PollAnswer, pollDelayMs } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import type { Reply } from "../reply.js";
import { saveOutcome } from "./intent.js";

/**
 * The one reconciler of a spend whose outcome is not known after Confirm (no answer in time, a lost
 * answer, "still processing"): it keeps a record of what was confirmed, asks the service again with
 * backoff until the answer is known or its window ends, then posts the outcome once (in place of
 * the quote when its message is known) and forgets the record. A definition says how to ask and
 * what to say; order5m (`energy/reconcile-order5m.ts`) and Host Mode start
 * (`host/reconcile-host-start.ts`) are two, and the next spend with an unknown outcome is a third.
 */
type ReconcileKind = Extract<TrackedJob, { confirmationId: string }>["kind"];
interface ReconcileJob<K extends ReconcileKind> {
  kind: K;
  confirmationId: string;
  conversation: ConversationRef;
  attempt?: number;
}

/** What every record has: who confirmed, where, and the quote's message (the outcome replaces it). */
export interface ReconcileRecordBase {
  confirmationId: string;
  conversation: ConversationRef;
  startedAt: number;
  replaces?: string | undefined;
}

/** One attempt's result: the outcome to post, or "ask again" with the error that left it unknown. */
export type ReconcileStep = { outcome: Reply } | { askAgain: unknown };

export interface ReconcilerDefinition<K extends ReconcileKind, R extends ReconcileRecordBase> {
  kind: K;
  /** Store key of the record: `${recordPrefix}:${confirmationId}`. */
  recordPrefix: string;
  schema: z.ZodType<R>;
  firstMs: number;
  maxDelayMs: number;
  /** After this long since the record was made, the reconciler stops asking. */
  windowMs: number;
  /** Asks the service once; `save` keeps a changed record (a step done) for the next attempt. */
  attempt(deps: CoreDeps, record: R, save: (record: R) => Promise<void>): Promise<ReconcileStep>;
  /** The window ended without an answer: audits and returns what is posted. */
  expire(deps: CoreDeps, record: R): Promise<Reply>;
  /** The log line (and its extra fields) of an "ask again". */
  stillUnknown(record: R, error: unknown): { fields: Record<string, unknown>; message: string };
}

const RECORD_TTL_MS = 25 * 60 * 60_000;
const dedupKey = (cid: string) => `reconciled:${cid}`;

export interface Reconciler<K extends ReconcileKind, R extends ReconcileRecordBase> {
  /** Hands a confirmation to the reconciler (scheduling it twice is a no-op). */
  schedule(deps: Pick<CoreDeps, "store" | "jobs" | "now">, record: R, retryAfterMs?: number): Promise<void>;
  createHandler(deps: CoreDeps): (job: ReconcileJob<K>) => Promise<PollAnswer>;
}

export function createReconciler<K extends ReconcileKind, R extends ReconcileRecordBase>(
  def: ReconcilerDefinition<K, R>,
): Reconciler<K, R> {
  const recordKey = (cid: string) => `${def.recordPrefix}:${cid}`;
  const save = (deps: Pick<CoreDeps, "store">, record: R) =>
    setJson(deps.store, recordKey(record.confirmationId), record, RECORD_TTL_MS);

  /** The outcome, once per confirmation, in place of the quote when its message is known. */
  async function finish(deps: CoreDeps, record: R, reply: Reply): Promise<PollAnswer> {
    // The confirmation's outcome from now on: a recovery that posts it later never says "not known yet".
    await saveOutcome(deps.store, record.confirmationId, reply);
    const outcome = record.replaces === undefined ? reply : { ...reply, replaces: record.replaces };
    await deps.notifier.post(record.conversation, outcome, dedupKey(record.confirmationId));
    await deps.store.del(recordKey(record.confirmationId));
    return { done: true };
  }

  async function askAgain(deps: CoreDeps, job: ReconcileJob<K>, record: R, error: unknown) {
    const planned = pollDelayMs(job.attempt ?? 0, {
      firstMs: def.firstMs,
      maxMs: def.maxDelayMs,
      totalMs: def.windowMs,
    });
    const hinted = isServiceError(error) ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = planned === null ? null : Math.max(planned, hinted);
    if (delayMs !== null && deps.now() - record.startedAt + delayMs < def.windowMs) {
      const { fields, message } = def.stillUnknown(record, error);
      deps.logger.info({ confirmationId: record.confirmationId, ...fields, delayMs }, message);
      return { again: true, delayMs } as const;
    }
    return finish(deps, record, await def.expire(deps, record));
  }

  return {
    async schedule(deps, record, retryAfterMs) {
      await save(deps, record);
      const job = {
        kind: def.kind,
        confirmationId: record.confirmationId,
        conversation: record.conversation,
      };
      await deps.jobs.schedule(job as Extract<TrackedJob, { kind: K }>, {
        delayMs: Math.max(def.firstMs, retryAfterMs ?? 0),
        jobId: `${def.kind}:${record.confirmationId}`,
      });
    },
    createHandler(deps) {
      return async (job) => {
        const record = await getJson(deps.store, recordKey(job.confirmationId), def.schema);
        if (!record) return { done: true };
        const step = await def.attempt(deps, record, (changed) => save(deps, changed));
        if ("outcome" in step) return finish(deps, record, step.outcome);
        return askAgain(deps, job, record, step.askAgain);
      };
    },
  };
}
