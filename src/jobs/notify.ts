import type { ConversationRef, Platform } from "../core/invocation.js";
import { conversationKey } from "../core/invocation.js";
import type { Logger } from "../core/logger.js";
import type { ChatAdapter, Notifier } from "../core/ports.js";
import type { Store } from "../store/store.js";
import {
  attemptsWithin,
  type Backoff,
  isPermanentError,
  type JobContext,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
  PermanentJobError,
  retryAfterMsOf,
} from "./queue.js";
import { decodeReply, type EncodedReply, encodeReply } from "./reply-codec.js";

/**
 * Notifications are jobs: a chat outage or a restart delays a message, never loses it. Each
 * message is its own job; a conversation is paced by a send slot reserved when the message is
 * queued (and again before a retry), so its messages leave in order and ~1/s, and a conversation
 * that keeps failing only parks its own jobs in the delayed set while the others flow.
 */
export const NOTIFY_QUEUE = "notify";
/** Longer than any sender's retry window (report webhooks retry for ~31 h). */
export const NOTIFY_DEDUP_TTL_MS = 48 * 3_600_000;
export const NOTIFY_BACKOFF: Backoff = { delayMs: 2_000, maxDelayMs: 10 * 60_000 };
/** A failing send is retried for about a day, then dropped with an error log. */
export const NOTIFY_RETRY_WINDOW_MS = 24 * 3_600_000;
export const NOTIFY_SEND_TIMEOUT_MS = 30_000;
export const NOTIFY_CONCURRENCY = 8;

export interface NotifyRetry {
  attempts: number;
  backoff: Backoff;
}

export const NOTIFY_RETRY: NotifyRetry = {
  attempts: attemptsWithin(NOTIFY_RETRY_WINDOW_MS, NOTIFY_BACKOFF),
  backoff: NOTIFY_BACKOFF,
};

/** A slot this close is taken at once rather than parking the job for a few milliseconds. */
const PACE_SLACK_MS = 50;

/** The platforms' per-conversation pace: Slack ~1/s per channel; Telegram ~1/s per chat, 20/min per group. */
export function notifyGapMs(conversation: ConversationRef): number {
  switch (conversation.platform) {
    case "slack":
      return 1_000;
    case "telegram":
      return conversation.id.startsWith("-") ? 3_000 : 1_000;
    case "console":
      return 0;
  }
}

interface NotifyJob {
  conversation: ConversationRef;
  reply: EncodedReply;
  /** `attemptsMade` when this run's send slot was reserved; a retry reserves a new one. */
  pacedAt: number;
}

export interface NotifierOptions {
  store: Store;
  retry?: NotifyRetry;
  gapMs?: (conversation: ConversationRef) => number;
}

export function createNotifier(queues: JobQueue, options: NotifierOptions): Notifier {
  const retry = options.retry ?? NOTIFY_RETRY;
  const gapMs = options.gapMs ?? notifyGapMs;
  return {
    async post(conversation, reply, dedupKey) {
      const mark = dedupKey === undefined ? undefined : `notify:dedup:${dedupKey}`;
      if (mark !== undefined && !(await options.store.setIfNotExists(mark, "1", NOTIFY_DEDUP_TTL_MS))) return;
      try {
        const delayMs = await queues.pace(paceKey(conversation), gapMs(conversation));
        const job: NotifyJob = { conversation, reply: encodeReply(reply), pacedAt: 0 };
        await queues.add(NOTIFY_QUEUE, "notify", job, { delayMs, ...retry });
      } catch (error) {
        // Not queued: free the mark, so the caller's retry (a re-sent webhook, the next poll) posts it.
        if (mark !== undefined) await options.store.del(mark).catch(() => {});
        throw error;
      }
    },
  };
}

export interface NotifyWorkerOptions {
  adapters: ReadonlyMap<Platform, ChatAdapter>;
  logger: Logger;
  concurrency?: number;
  /** A send that hangs longer counts as failed (and is retried), so it cannot hold a worker slot. */
  sendTimeoutMs?: number;
  gapMs?: (conversation: ConversationRef) => number;
  /** Told of every failed send, retried or not (metrics). */
  onSendFailure?: (platform: Platform) => void;
}

export function startNotifyWorker(queues: JobQueue, options: NotifyWorkerOptions): Promise<JobWorker> {
  const deliver = createDeliver(queues, options);
  return queues.process<NotifyJob>(NOTIFY_QUEUE, deliver, {
    concurrency: options.concurrency ?? NOTIFY_CONCURRENCY,
  });
}

function createDeliver(queues: JobQueue, options: NotifyWorkerOptions) {
  const gapMs = options.gapMs ?? notifyGapMs;
  const timeoutMs = options.sendTimeoutMs ?? NOTIFY_SEND_TIMEOUT_MS;
  return async (job: JobContext<NotifyJob>): Promise<JobOutcome<NotifyJob>> => {
    const { conversation } = job.data;
    if (job.data.pacedAt !== job.attemptsMade) {
      const waitMs = await queues.pace(paceKey(conversation), gapMs(conversation));
      if (waitMs > PACE_SLACK_MS)
        return { laterMs: waitMs, data: { ...job.data, pacedAt: job.attemptsMade } };
    }
    try {
      const adapter = options.adapters.get(conversation.platform);
      if (adapter === undefined)
        throw new PermanentJobError(`no ${conversation.platform} adapter is configured`);
      await withTimeout(adapter.send(conversation, decodeReply(job.data.reply)), timeoutMs);
      return "done";
    } catch (error) {
      logFailure(options.logger, job, error);
      options.onSendFailure?.(conversation.platform);
      throw error;
    }
  };
}

function logFailure(logger: Logger, job: JobContext<NotifyJob>, error: unknown): void {
  const attempt = job.attemptsMade + 1;
  const final = isPermanentError(error) || attempt >= job.maxAttempts;
  const fields = {
    jobId: job.id,
    conversation: conversationKey(job.data.conversation),
    attempt,
    maxAttempts: job.maxAttempts,
    retryAfterMs: retryAfterMsOf(error),
    code: (error as { code?: unknown } | null)?.code,
    err: error instanceof Error ? error.message : String(error),
  };
  if (final) {
    logger.error(
      fields,
      "notification dropped: the chat platform refused it; check that the bot can still post into this conversation",
    );
  } else {
    logger.warn(fields, "notification send failed; it will be retried");
  }
}

/** Slack's limit is per channel, not per thread, so threads share their channel's pace. */
const paceKey = (c: ConversationRef): string => `notify:${c.platform}:${c.id}`;

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`send timed out after ${ms} ms`), { code: "send_timeout" })),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
