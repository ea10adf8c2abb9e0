import { ChatSendError } from "../core/index.js";
/**
 * The job-queue port: named queues of JSON jobs with delays, deduplication by id, retries with a
 * capped exponential backoff, and "come back later" without spending an attempt. Two
 * implementations: BullMQ on Redis (`bull-queue.ts`, shared by every instance, survives restarts)
 * and an in-process one for the single-instance demo (`memory-queue.ts`).
 */
export interface Backoff {
  /** Delay before the first retry; doubles with every failed attempt. */
  delayMs: number;
  /** Cap on one delay, so a long outage is retried at a steady pace instead of ever more rarely. */
  maxDelayMs: number;
}

export interface AddOptions {
  /** While a job with this id is waiting, delayed or active, adding it again is a no-op. */
  jobId?: string;
  delayMs?: number;
  /** Total runs allowed, the first one included (default 1: no retry). */
  attempts?: number;
  backoff?: Backoff;
  /**
   * Answered only once a Redis replica holds the job too (Sentinel, Cluster; see
   * `replica-ack.ts`), else it fails: for an add that acknowledges something outside (a webhook's
   * 2xx). A failed add may still be stored, so only ask for it with a `jobId` (a retry is a no-op).
   */
  replicated?: boolean;
}

export interface JobContext<T> {
  id: string;
  name: string;
  data: T;
  /** Failed runs so far (0 on the first run). "Later" outcomes do not count. */
  attemptsMade: number;
  maxAttempts: number;
}

/**
 * What a handler answers. "done" completes the job. `laterMs` parks it and runs it
 * again after that delay without spending an attempt (polling); `data` replaces the job's data.
 * A thrown error is retried with the backoff, unless it is permanent (see `isPermanentError`).
 */
export type JobOutcome<T> = "done" | { laterMs: number; data?: T };
export type JobHandler<T> = (job: JobContext<T>) => Promise<JobOutcome<T>>;

export interface ProcessOptions {
  concurrency: number;
}

export interface JobWorker {
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface JobQueue {
  add<T>(queue: string, name: string, data: T, options?: AddOptions): Promise<void>;
  process<T>(queue: string, handler: JobHandler<T>, options: ProcessOptions): Promise<JobWorker>;
  counts(queue: string): Promise<JobCounts>;
  /**
   * How many jobs of `queue` are waiting, running, or delayed to within `ms` from now: the work
   * that will still happen soon. Unset where the delays cannot be read cheaply (BullMQ).
   */
  dueWithin?(queue: string, ms: number): Promise<number>;
  /** Removes a waiting or delayed job by its id; a job running or gone is left alone. */
  remove(queue: string, jobId: string): Promise<void>;
  /**
   * Reserves the next send slot of `key`, at least `gapMs` after the previous reservation, and
   * answers how long to wait for it. Atomic and shared by every instance: paces one chat
   * conversation without parking a worker. `notBeforeMs`: the slot is at least that far from now
   * (a platform's Retry-After), and the key's later slots come after it.
   */
  pace(key: string, gapMs: number, notBeforeMs?: number): Promise<number>;
  /**
   * Adds a job named `name` to `queue` every `everyMs`: one schedule for all instances (BullMQ's
   * job scheduler); calling it again with the same `schedulerId` updates it, never doubles it.
   */
  repeat(queue: string, schedulerId: string, everyMs: number, name: string, data: unknown): Promise<void>;
  /** Closes every worker (waiting for jobs in flight), then the queues and their connections. */
  close(): Promise<void>;
}

/** Thrown by a handler when retrying cannot help (bad data, a chat that no longer exists). */
export class PermanentJobError extends Error {
  readonly code = "job_permanent";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PermanentJobError";
  }
}

export const DEFAULT_BACKOFF: Backoff = { delayMs: 1_000, maxDelayMs: 60_000 };

/**
 * Permanent: our own marker, a chat send the platform will always refuse (`ChatSendError`), or an
 * error that says so itself (the service's `ServiceError.retryable`; jobs do not import the service).
 */
export function isPermanentError(error: unknown): boolean {
  if (error instanceof PermanentJobError) return true;
  if (error instanceof ChatSendError) return !error.retryable;
  return (
    typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === false
  );
}

/** A platform's or the service's "retry after" hint, when the error carries one. */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const value =
    error instanceof ChatSendError ? error.retryAfterMs : (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * Delay before the next run after `attemptsMade` failures (≥ 1): capped exponential, and never
 * sooner than the error's own retry-after hint.
 */
export function retryDelayMs(backoff: Backoff, attemptsMade: number, error: unknown): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const computed = Math.min(backoff.maxDelayMs, backoff.delayMs * 2 ** Math.min(exponent, 40));
  return Math.max(computed, retryAfterMsOf(error) ?? 0);
}

/** How many attempts fit in `windowMs` of retrying with `backoff` (the first run included). */
export function attemptsWithin(windowMs: number, backoff: Backoff): number {
  let attempts = 1;
  let elapsed = 0;
  for (;;) {
    const next = retryDelayMs(backoff, attempts, undefined);
    if (elapsed + next > windowMs) return attempts;
    elapsed += next;
    attempts += 1;
  }
}

/** The queues this project uses, for `/metrics`. */
const QUEUE_NAMES = ["notify", "tracked", "webhooks"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** Depth of every queue, for a gauge per queue and state. */
export async function queueDepths(queues: JobQueue): Promise<Record<QueueName, JobCounts>> {
  const entries = await Promise.all(QUEUE_NAMES.map(async (name) => [name, await queues.counts(name)]));
  return Object.fromEntries(entries) as Record<QueueName, JobCounts>;
}
