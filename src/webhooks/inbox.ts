import type { NotificationSource } from "../core/notifications/events.js";
import { attemptsWithin, type Backoff, type JobQueue } from "../jobs/queue.js";
import { storeWithin } from "../store/bounded.js";
import type { Store } from "../store/store.js";

/**
 * The inbox: every accepted delivery (order or report webhook, Host Mode callback) is stored as a
 * job on the `webhooks` queue BEFORE the sender gets its 2xx. The stored record is the job, so a
 * crash between the acknowledgement and the chat post still posts after a restart, on whichever
 * instance picks the job up. The job id is the delivery's identity: a repeat that arrives while
 * the first is still queued adds nothing; one that arrives later finds the router's done mark.
 */
export const WEBHOOK_QUEUE = "webhooks";

type InboundSource = NotificationSource;

export interface InboundJob {
  source: InboundSource;
  /** `notificationKey` of the event: the delivery's identity. */
  key: string;
  /** The verified body (webhooks) or query (callbacks), as received: parsed again by the worker. */
  body: unknown;
  receivedAt: number;
  /** How many times the router deferred it (waiting for its origin to be recorded). */
  deferrals: number;
}

const INBOUND_BACKOFF: Backoff = { delayMs: 1_000, maxDelayMs: 5 * 60_000 };
/** Errors only (the store or the queue down): retried for about a day, like the notifications. */
const INBOUND_RETRY = {
  attempts: attemptsWithin(24 * 3_600_000, INBOUND_BACKOFF),
  backoff: INBOUND_BACKOFF,
};

const inboundJobId = (key: string): string => `inbound:${key}`;

/**
 * How long a sender waits for the store before it is told to retry. The queue's connection waits
 * out a Redis outage (it queues commands while reconnecting); the sender should not. A job written
 * after the 503 is harmless: the retry finds the same job id.
 */
const STORE_INBOUND_TIMEOUT_MS = 5_000;

/** Resolves once the delivery is stored durably (in Redis with BullMQ); throws when it could not be. */
export async function storeInbound(queues: JobQueue, job: Omit<InboundJob, "deferrals">): Promise<void> {
  const data: InboundJob = { ...job, deferrals: 0 };
  // Replicated: a 2xx must survive the master's failover (Sentinel, Cluster).
  const options = { jobId: inboundJobId(job.key), ...INBOUND_RETRY, replicated: true };
  await storeWithin(queues.add(WEBHOOK_QUEUE, job.source, data, options), STORE_INBOUND_TIMEOUT_MS);
}

/** What became of one inbound request, for metrics. */
type IngestResult = "accepted" | "duplicate" | "rejected" | "ignored" | "failed";
export type IngestObserver = (event: { route: InboundSource; result: IngestResult }) => void;

export interface IngestReporter {
  /** A request answered without storing anything (refused, ignored, not stored). */
  answered(route: InboundSource, result: Exclude<IngestResult, "accepted" | "duplicate">): void;
  /** A stored delivery: `duplicate` when its identity was stored before (the sender repeated it). */
  stored(route: InboundSource, key: string): Promise<void>;
}

/** Repeat marks outlive the longest retry window of a sender (report webhooks: ~31 h). */
const SEEN_TTL_MS = 48 * 3_600_000;

/**
 * The queue absorbs a repeat silently (same job id, or the router's done mark), so telling a
 * repeat from a first delivery takes a mark of its own. It is set after the delivery is stored,
 * so it never decides what is stored, and only for metrics: a failing store counts as "accepted".
 */
export function createIngestReporter(store: Store, observe: IngestObserver): IngestReporter {
  return {
    answered: (route, result) => observe({ route, result }),
    async stored(route, key) {
      const first = await store.setIfNotExists(`inbound:seen:${key}`, "1", SEEN_TTL_MS).catch(() => true);
      observe({ route, result: first ? "accepted" : "duplicate" });
    },
  };
}
