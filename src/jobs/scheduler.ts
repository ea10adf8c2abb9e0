import type { JobScheduler, Logger, PollAnswer, TrackedJob } from "../core/index.js";
import {
  type Backoff,
  isPermanentError,
  type JobContext,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
} from "./queue.js";

// The poll answer and the delay ramp belong to the core (its tracking decides when to poll again);
// re-exported here for the job system's users.
export { type PollAnswer, pollDelayMs } from "../core/index.js";

/**
 * Tracked work (polling a pending screening, a statement, an orchestrator order; watching a
 * delivery) as jobs on the `tracked` queue. A handler answers "done" or "again after delayMs";
 * "again" parks the job without spending an attempt, so only real errors (the service down, a
 * bug) use the bounded retries. BullMQ's job lock keeps one job in one worker at a time.
 */
export const TRACKED_QUEUE = "tracked";
/** Errors, not polls: a handler that throws this many times in a row gives up. */
const TRACKED_ATTEMPTS = 6;
const TRACKED_BACKOFF: Backoff = { delayMs: 2_000, maxDelayMs: 60_000 };
/**
 * Most tracked work waits: on the service (an order answers in up to 2 s) or on a rate-limit
 * slot. Enough jobs at once to keep order5m's 50 calls/s full when confirmations were handed
 * over in a burst (src/core/intents/durable.ts); each waiting job costs a lock and a promise.
 */
const TRACKED_CONCURRENCY = 64;

export interface TrackedContext {
  jobId: string;
  /** How many times this job answered "again" so far. */
  polls: number;
}

export type TrackedHandlers = {
  [K in TrackedJob["kind"]]: (
    job: Extract<TrackedJob, { kind: K }>,
    ctx: TrackedContext,
  ) => Promise<PollAnswer>;
};

interface TrackedData {
  job: TrackedJob;
  polls: number;
}

export interface TrackedOptions {
  attempts?: number;
  backoff?: Backoff;
}

export function createJobScheduler(queues: JobQueue, options: TrackedOptions = {}): JobScheduler {
  return {
    async schedule(job, { delayMs, jobId }) {
      const data: TrackedData = { job, polls: job.kind === "watch-delivery" ? 0 : (job.attempt ?? 0) };
      await queues.add(TRACKED_QUEUE, job.kind, data, {
        jobId,
        delayMs,
        attempts: options.attempts ?? TRACKED_ATTEMPTS,
        backoff: options.backoff ?? TRACKED_BACKOFF,
      });
    },
    async cancel(jobId) {
      await queues.remove(TRACKED_QUEUE, jobId);
    },
  };
}

export interface TrackedWorkerOptions {
  logger: Logger;
  concurrency?: number;
}

export function startTrackedWorker(
  queues: JobQueue,
  handlers: TrackedHandlers,
  options: TrackedWorkerOptions,
): Promise<JobWorker> {
  const run = async (ctx: JobContext<TrackedData>): Promise<JobOutcome<TrackedData>> => {
    const { job, polls } = ctx.data;
    try {
      const answer = await dispatch(handlers, withAttempt(job, polls), { jobId: ctx.id, polls });
      if ("done" in answer) return "done";
      return { laterMs: answer.delayMs, data: { job, polls: polls + 1 } };
    } catch (error) {
      logFailure(options.logger, ctx, error);
      throw error;
    }
  };
  return queues.process(TRACKED_QUEUE, run, { concurrency: options.concurrency ?? TRACKED_CONCURRENCY });
}

/** TypeScript cannot correlate `handlers[job.kind]` with `job`; the mapped type guarantees it. */
function dispatch(handlers: TrackedHandlers, job: TrackedJob, ctx: TrackedContext): Promise<PollAnswer> {
  const handler = handlers[job.kind] as (job: TrackedJob, ctx: TrackedContext) => Promise<PollAnswer>;
  return handler(job, ctx);
}

/** Kinds that carry `attempt` see the poll count there, so their handler can pick the next delay. */
function withAttempt(job: TrackedJob, polls: number): TrackedJob {
  return job.kind === "watch-delivery" ? job : { ...job, attempt: polls };
}

function logFailure(logger: Logger, ctx: JobContext<TrackedData>, error: unknown): void {
  const attempt = ctx.attemptsMade + 1;
  const final = isPermanentError(error) || attempt >= ctx.maxAttempts;
  const fields = {
    jobId: ctx.id,
    kind: ctx.data.job.kind,
    attempt,
    maxAttempts: ctx.maxAttempts,
    err: error instanceof Error ? error.message : String(error),
  };
  if (final) logger.error(fields, "tracked job gave up after errors; the user is not told of its result");
  else logger.warn(fields, "tracked job failed; it will be retried");
}
