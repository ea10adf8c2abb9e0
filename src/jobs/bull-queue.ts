import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { within } from "../clock.js";
import { type ConnectOptions, isCluster, quitRedis, type RedisClient } from "../store/redis-connect.js";
import { defineRedisScript } from "../store/redis-script.js";
import { type ReplicaAck, replicaWait } from "../store/replica-ack.js";
import { type AddJob, createAddBatcher } from "./bull-add-batch.js";
import {
  type AddOptions,
  type Backoff,
  DEFAULT_BACKOFF,
  isPermanentError,
  type JobCounts,
  type JobHandler,
  type JobQueue,
  type JobWorker,
  type ProcessOptions,
  retryDelayMs,
} from "./queue.js";

/**
 * The real `JobQueue`: BullMQ 5 on Redis. Jobs survive restarts and are shared by every instance;
 * BullMQ's job locks make sure one job runs in one worker at a time.
 */
export interface BullQueuesOptions {
  /**
   * Where Redis is: a URL, ioredis options, or a connection factory (`RedisConnector.connect`,
   * for Sentinel and Cluster). Never with an ioredis `keyPrefix`: BullMQ has its own `prefix`.
   */
  connection: { url: string } | RedisOptions | ((options: ConnectOptions) => RedisClient);
  /** BullMQ's key prefix (also used for pace keys), e.g. `opsbot`; on a cluster hash-tagged, `{opsbot:jobs}`. */
  prefix: string;
  /** Connection and worker errors; an "error" event nobody listens to would crash the process. */
  onError?: (error: Error) => void;
  /** Sentinel and Cluster: an add is answered once a replica holds it too (WAIT). */
  replicaAck?: ReplicaAck;
}

/** Finished jobs leave Redis at once; failed ones stay a week (bounded) for an operator to read. */
const REMOVE_ON_FAIL = { age: 7 * 24 * 3600, count: 1_000 };
const BACKOFF_TYPE = /^capped:(\d+):(\d+)$/;

// Reserves the next slot of a key on Redis's own clock, so instances with skewed clocks agree.
const paceScript = defineRedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
local earliest = now + tonumber(ARGV[2] or '0')
if slot < earliest then slot = earliest end
local gap = tonumber(ARGV[1])
redis.call('SET', KEYS[1], slot + gap, 'PX', slot + gap - now + 60000)
return slot - now
`);

export function createBullQueues(options: BullQueuesOptions): JobQueue {
  const prefix = options.prefix.replace(/:+$/, "");
  const onError = options.onError ?? (() => {});
  const shared = connect(options.connection, {});
  shared.on("error", onError);
  const queues = new Map<string, Queue>();
  const adders = new Map<string, AddJob>();
  const workers = new Set<JobWorker>();

  function queueFor(name: string): Queue {
    let queue = queues.get(name);
    if (queue === undefined) {
      queue = new Queue(name, { connection: shared, prefix });
      queue.on("error", onError);
      queues.set(name, queue);
    }
    return queue;
  }

  function adderFor(name: string): AddJob {
    let add = adders.get(name);
    if (add === undefined) {
      const afterStore = options.replicaAck && replicaWait(shared, prefix, options.replicaAck);
      add = createAddBatcher(queueFor(name), afterStore);
      adders.set(name, add);
    }
    return add;
  }

  return {
    async add(queue, name, data, opts: AddOptions = {}) {
      await adderFor(queue)(
        name,
        data,
        {
          jobId: opts.jobId === undefined ? undefined : encodeJobId(opts.jobId),
          delay: opts.delayMs,
          attempts: opts.attempts ?? 1,
          backoff: { type: backoffType(opts.backoff ?? DEFAULT_BACKOFF) },
          removeOnComplete: true,
          removeOnFail: REMOVE_ON_FAIL,
        },
        opts.replicated === true,
      );
    },

    async process(queue, handler, processOptions) {
      const overdueMs = stuckProbe(queueFor(queue));
      const handle = await startWorker(queue, handler, processOptions, {
        ...options,
        prefix,
        onError,
        overdueMs,
      });
      const tracked: JobWorker = {
        async close() {
          workers.delete(tracked);
          await handle.close();
        },
      };
      workers.add(tracked);
      return tracked;
    },

    async counts(queue) {
      const c = await queueFor(queue).getJobCounts(
        "waiting",
        "prioritized",
        "paused",
        "active",
        "delayed",
        "failed",
      );
      return countsOf(c);
    },

    async remove(queue, jobId) {
      const job = await queueFor(queue).getJob(encodeJobId(jobId));
      // A job running elsewhere holds its lock: it finishes on its own.
      if (job && ((await job.isDelayed()) || (await job.isWaiting()))) await job.remove().catch(() => {});
    },

    async pace(key, gapMs, notBeforeMs = 0) {
      const args = [Math.max(0, Math.round(gapMs)), Math.max(0, Math.round(notBeforeMs))];
      return Number(await paceScript.run(shared, [`${prefix}:pace:${key}`], args));
    },

    async repeat(queue, schedulerId, everyMs, name, data) {
      await queueFor(queue).upsertJobScheduler(
        encodeJobId(schedulerId),
        { every: Math.max(1, Math.round(everyMs)) },
        { name, data, opts: { removeOnComplete: true, removeOnFail: REMOVE_ON_FAIL } },
      );
    },

    async close() {
      await Promise.all([...workers].map((w) => w.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      queues.clear();
      adders.clear();
      await quitRedis(shared);
    },
  };
}

async function startWorker<T>(
  queue: string,
  handler: JobHandler<T>,
  { concurrency }: ProcessOptions,
  options: BullQueuesOptions & { onError: (error: Error) => void; overdueMs?: () => Promise<number> },
): Promise<JobWorker> {
  const spawn = async () => {
    // Workers block on Redis, so each gets its own connection that never gives up on a command.
    const connection = connect(options.connection, { maxRetriesPerRequest: null });
    connection.on("error", options.onError);
    const worker = new Worker<T>(queue, (job, token) => runJob(job, token, handler), {
      connection,
      prefix: options.prefix,
      concurrency,
      settings: { backoffStrategy },
    });
    worker.on("error", options.onError);
    const close = async () => {
      await worker.close();
      await quitRedis(connection);
    };
    try {
      await worker.waitUntilReady();
    } catch (error) {
      await close().catch(() => {});
      throw error;
    }
    return { close, cluster: isCluster(connection) };
  };
  let current = await spawn();
  if (!current.cluster || !options.overdueMs) return { close: () => current.close() };
  return watchOverdue(
    options.overdueMs,
    spawn,
    () => current,
    (next) => {
      current = next;
    },
  );
}

/** A due delayed job this much overdue means no worker of the queue is taking jobs. */
const STUCK_OVERDUE_MS = 15_000;
const STUCK_CHECK_MS = 5_000;
const STUCK_CLOSE_MS = 5_000;

/**
 * After a cluster failover BullMQ's worker can stay stuck on a blocking connection that never
 * recovers (BullMQ issues #4138, #2619): jobs wait in Redis, nothing takes them. When the queue's
 * oldest due delayed job is overdue by STUCK_OVERDUE_MS, or the same job has been the oldest
 * waiting one that long, the worker is replaced by a new one (at most once per that time).
 */
function watchOverdue<W extends { close(): Promise<void> }>(
  overdueMs: () => Promise<number>,
  spawn: () => Promise<W>,
  current: () => W,
  replace: (next: W) => void,
): JobWorker {
  let closing = false;
  let busy = false;
  let replacedAt = Number.NEGATIVE_INFINITY;
  const timer = setInterval(async () => {
    if (busy || closing) return;
    busy = true;
    try {
      // A new worker gets as long as the old one had before it is judged.
      if ((await overdueMs()) < STUCK_OVERDUE_MS || Date.now() - replacedAt < STUCK_OVERDUE_MS) return;
      replacedAt = Date.now();
      const old = current();
      replace(await spawn());
      await within(
        old.close().catch(() => {}),
        STUCK_CLOSE_MS,
      );
    } catch {
      // Redis still away: the next check tries again.
    } finally {
      busy = false;
    }
  }, STUCK_CHECK_MS);
  timer.unref();
  return {
    async close() {
      closing = true;
      clearInterval(timer);
      await current().close();
    },
  };
}

async function runJob<T>(job: Job<T>, token: string | undefined, handler: JobHandler<T>): Promise<void> {
  let outcome: Awaited<ReturnType<JobHandler<T>>>;
  try {
    outcome = await handler({
      id: decodeJobId(job.id ?? ""),
      name: job.name,
      data: job.data,
      attemptsMade: job.attemptsMade,
      maxAttempts: job.opts.attempts ?? 1,
    });
  } catch (error) {
    // BullMQ skips the remaining attempts only for its own class.
    if (isPermanentError(error)) throw new UnrecoverableError(messageOf(error));
    throw error instanceof Error ? error : new Error(String(error));
  }
  if (outcome === "done") return;
  if (outcome.data !== undefined) await job.updateData(outcome.data);
  // Parked, not failed: DelayedError tells the worker the job was moved and spends no attempt.
  await job.moveToDelayed(Date.now() + Math.max(0, outcome.laterMs), token);
  throw new DelayedError();
}

/** The job stores its backoff in the type name, so the strategy needs nothing but the job. */
function backoffType(backoff: Backoff): string {
  return `capped:${Math.round(backoff.delayMs)}:${Math.round(backoff.maxDelayMs)}`;
}

function backoffStrategy(attemptsMade: number, type?: string, error?: Error): number {
  const match = BACKOFF_TYPE.exec(type ?? "");
  const backoff = match ? { delayMs: Number(match[1]), maxDelayMs: Number(match[2]) } : DEFAULT_BACKOFF;
  return retryDelayMs(backoff, attemptsMade, error);
}

/** BullMQ scores a delayed job by its due time × 0x1000 (plus a counter below it). */
const DELAYED_SCORE_SCALE = 0x1000;

/**
 * How long the queue has had work that nobody takes: its earliest delayed job's time past due, or
 * how long the same job has been the oldest one waiting (seen by consecutive probes).
 */
function stuckProbe(queue: Queue): () => Promise<number> {
  let oldest: { id: string; since: number } | undefined;
  return async () => {
    const client = await queue.client;
    const [, score] = await client.zrange(queue.keys.delayed ?? "", 0, 0, { WITHSCORES: true });
    const overdue = score === undefined ? 0 : Date.now() - Math.floor(Number(score) / DELAYED_SCORE_SCALE);
    const [id] = await client.lrange(queue.keys.wait ?? "", -1, -1);
    if (id === undefined) oldest = undefined;
    else if (oldest?.id !== id) oldest = { id, since: Date.now() };
    return Math.max(0, overdue, oldest ? Date.now() - oldest.since : 0);
  };
}

function countsOf(c: Record<string, number>): JobCounts {
  const n = (key: string) => c[key] ?? 0;
  return {
    waiting: n("waiting") + n("prioritized") + n("paused"),
    active: n("active"),
    delayed: n("delayed"),
    failed: n("failed"),
  };
}

/** BullMQ refuses custom ids that look like integers or contain ":"; ours are free text. */
export function encodeJobId(id: string): string {
  if (/^-?\d+$/.test(id)) return `#${id}`;
  return id.replaceAll("%", "%25").replaceAll(":", "%3A").replaceAll("#", "%23");
}

export function decodeJobId(id: string): string {
  if (id.startsWith("#")) return id.slice(1);
  return id.replace(/%(25|3A|23)/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function connect(connection: BullQueuesOptions["connection"], extra: ConnectOptions): RedisClient {
  if (typeof connection === "function") return connection(extra);
  if (hasUrl(connection)) return new Redis(connection.url, extra);
  return new Redis({ ...connection, ...extra });
}

function hasUrl(connection: BullQueuesOptions["connection"]): connection is { url: string } {
  return typeof (connection as { url?: unknown }).url === "string";
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
