import { createHash } from "node:crypto";
import type { NotificationSource } from "../core/index.js";
import { attemptsWithin, type Backoff, type JobQueue } from "../jobs/queue.js";
import { storeWithin } from "../store/bounded.js";
import type { Store } from "../store/store.js";

/**
 * The inbox: every accepted delivery (order or report webhook, Host Mode callback) is stored as
 * part of a job on the `webhooks` queue BEFORE the sender gets its 2xx. The stored record is the
 * job, so a crash between the acknowledgement and the chat post still posts after a restart, on
 * whichever instance picks the job up.
 *
 * The deliveries accepted while the previous store is under way (a burst: many connections at
 * once) are stored together as one job, in one write: a queue job costs about as much as the whole HTTP
 * request, so one per delivery halved what a burst could be accepted at. A job's id follows from
 * its deliveries' identities, so a repeat that arrives while the first is still queued adds
 * nothing; one that arrives later, or in a job with other deliveries, finds the router's done mark.
 */
export const WEBHOOK_QUEUE = "webhooks";

type InboundSource = NotificationSource;

export interface InboundDelivery {
  source: InboundSource;
  /** `notificationKey` of the event: the delivery's identity. */
  key: string;
  /** The verified body (webhooks) or query (callbacks), as received: parsed again by the worker. */
  body: unknown;
  receivedAt: number;
  /** How many times the router deferred it (waiting for its origin to be recorded). */
  deferrals: number;
}

/** One inbox job: deliveries stored together, routed one by one (see `worker.ts`). */
export interface InboundBatch {
  deliveries: InboundDelivery[];
}

/**
 * Capped at 10 s: a job holds a burst of deliveries, and fails when any of them cannot be handed
 * on (Redis failing over), so its attempts add up faster than one delivery's would; a longer cap
 * left a whole burst waiting a minute after Redis was back. A retry is one cheap job.
 */
export const INBOUND_BACKOFF: Backoff = { delayMs: 1_000, maxDelayMs: 10_000 };
/** Errors only (the store or the queue down): retried for about a day, like the notifications. */
const INBOUND_RETRY = {
  attempts: attemptsWithin(24 * 3_600_000, INBOUND_BACKOFF),
  backoff: INBOUND_BACKOFF,
};

/** One delivery: its own identity. Several: a digest of theirs (the same deliveries, the same id). */
function inboundJobId(deliveries: readonly InboundDelivery[]): string {
  const [only] = deliveries;
  if (deliveries.length === 1 && only) return `inbound:${only.key}`;
  const digest = createHash("sha256");
  for (const d of deliveries) digest.update(d.key).update("\n");
  return `inbound:batch:${digest.digest("base64url")}`;
}

/**
 * How long a sender waits for the store before it is told to retry. The queue's connection waits
 * out a Redis outage (it queues commands while reconnecting); the sender should not. A job written
 * after the 503 is harmless: the retry finds the same job id, or the router's done mark.
 */
const STORE_INBOUND_TIMEOUT_MS = 5_000;

/**
 * Stores deliveries as one inbox job (later: after `delayMs`). Resolves once it is stored durably
 * (in Redis with BullMQ, and on a replica under Sentinel or Cluster); throws when it could not be.
 */
export async function addInbound(
  queues: JobQueue,
  deliveries: InboundDelivery[],
  delayMs?: number,
): Promise<void> {
  const [first] = deliveries;
  if (!first) return;
  const batch: InboundBatch = { deliveries };
  // Replicated: a 2xx must survive the master's failover (Sentinel, Cluster).
  const options = {
    jobId: inboundJobId(deliveries),
    ...INBOUND_RETRY,
    replicated: true,
    ...(delayMs !== undefined && delayMs > 0 && { delayMs }),
  };
  const name = deliveries.length === 1 ? first.source : "batch";
  await storeWithin(queues.add(WEBHOOK_QUEUE, name, batch, options), STORE_INBOUND_TIMEOUT_MS);
}

/** At most this many deliveries, or about this many bytes of them, go into one job. */
const BATCH_MAX_DELIVERIES = 64;
const BATCH_MAX_BYTES = 512 * 1024;

export interface Inbox {
  /**
   * Resolves once the delivery is stored (with the others of this turn); throws when it could not
   * be. `bytes`: the size of its body as received, to keep one job small.
   */
  store(delivery: Omit<InboundDelivery, "deferrals">, bytes: number): Promise<void>;
}

interface Waiting {
  delivery: InboundDelivery;
  bytes: number;
  settle: { resolve: () => void; reject: (error: unknown) => void }[];
}

export function createInbox(queues: JobQueue): Inbox {
  let pending = new Map<string, Waiting>();
  let flushing = false;

  /** One store under way at a time: a lone delivery goes at once, a burst's go in fewer, larger jobs. */
  function schedule(): void {
    if (flushing || pending.size === 0) return;
    flushing = true;
    setImmediate(flush);
  }

  function flush(): void {
    const taken = [...pending.values()];
    pending = new Map();
    const stores = groups(taken).map((group) => {
      const settle = group.flatMap((w) => w.settle);
      return addInbound(
        queues,
        group.map((w) => w.delivery),
      ).then(
        () => {
          for (const s of settle) s.resolve();
        },
        (error: unknown) => {
          for (const s of settle) s.reject(error);
        },
      );
    });
    void Promise.all(stores).then(() => {
      flushing = false;
      schedule();
    });
  }

  return {
    store(delivery, bytes) {
      return new Promise<void>((resolve, reject) => {
        // The same delivery twice before it is stored (a sender's quick repeat) is stored once.
        const same = pending.get(delivery.key);
        if (same) return void same.settle.push({ resolve, reject });
        pending.set(delivery.key, {
          delivery: { ...delivery, deferrals: 0 },
          bytes,
          settle: [{ resolve, reject }],
        });
        schedule();
      });
    },
  };
}

function groups(waiting: readonly Waiting[]): Waiting[][] {
  const out: Waiting[][] = [];
  let current: Waiting[] = [];
  let bytes = 0;
  for (const w of waiting) {
    if (current.length > 0 && (current.length >= BATCH_MAX_DELIVERIES || bytes + w.bytes > BATCH_MAX_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(w);
    bytes += w.bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
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
 * The marks of one turn (a burst) are set in one round trip: one command per delivery cost about
 * as much Redis work as the bare SET NX of a whole webhook receiver.
 */
export function createIngestReporter(store: Store, observe: IngestObserver): IngestReporter {
  let turn: { route: InboundSource; key: string; done: () => void }[] = [];

  async function flush(): Promise<void> {
    const marks = turn;
    turn = [];
    const keys = marks.map((m) => `inbound:seen:${m.key}`);
    const firsts = await store.setManyIfNotExists(keys, "1", SEEN_TTL_MS).catch(() => keys.map(() => true));
    marks.forEach((m, i) => {
      observe({ route: m.route, result: firsts[i] === false ? "duplicate" : "accepted" });
      m.done();
    });
  }

  return {
    answered: (route, result) => observe({ route, result }),
    stored: (route, key) =>
      new Promise<void>((done) => {
        turn.push({ route, key, done });
        if (turn.length === 1) setImmediate(() => void flush());
      }),
  };
}
