import { type Clock, sleep, systemClock, within } from "../clock.js";
import type {
  Block,
  ChatAdapter,
  ConversationRef,
  Logger,
  MessageLimits,
  Notifier,
  Platform,
  PlatformFacts,
  Reply,
} from "../core/index.js";
import {
  canDigest,
  conversationKey,
  decodeReply,
  digestBudget,
  digestCost,
  encodeReply,
  platformFacts,
  renderNoticeDigest,
} from "../core/index.js";
import {
  type AddOptions,
  attemptsWithin,
  type Backoff,
  isPermanentError,
  type JobContext,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
  PermanentJobError,
  retryAfterMsOf,
} from "../jobs/queue.js";
import type { AfterStore } from "../store/replica-ack.js";
import type { Store } from "../store/store.js";
import { type BoxState, type Lane, mailboxKey, type Notice, type NotifyBox, notifyBox } from "./mailbox.js";

/**
 * Notifications are jobs: a chat outage or a restart delays a message, never loses it. Each notice
 * is stored in its conversation's mailbox (`mailbox.ts`). The poster that finds nobody sending
 * for the conversation queues a lead job: it reserves the channel's next send slot (its platform's
 * pace, `PlatformFacts.sendGapMs`: Slack ~1/s per channel; shared by every instance), and at that
 * slot posts what waited meanwhile, one notice as it is, several as one digest ("12 deliveries
 * confirmed", each order and hash listed) that fits one message of the platform
 * (`PlatformFacts.limits`); it leads until the mailbox is empty. So a burst costs one
 * message per slot instead of one slot per notice, and a conversation that keeps failing pauses
 * as a whole while the others flow. A 429 is not a failure: the lead takes the channel's first slot
 * after its Retry-After and goes on from there (no attempt spent, so no growing backoff).
 *
 * Agents' requests are posted in the `low` lane of their mailbox: the lead sends them only when no
 * answer, alert or delivery notice of the place waits, so a burst of them never delays those.
 */
export const NOTIFY_QUEUE = "notify";
/** Longer than any sender's retry window (report webhooks retry for ~31 h). */
const NOTIFY_DEDUP_TTL_MS = 48 * 3_600_000;
const NOTIFY_BACKOFF: Backoff = { delayMs: 2_000, maxDelayMs: 10 * 60_000 };
/** A failing send is retried for about a day, then dropped with an error log. */
const NOTIFY_RETRY_WINDOW_MS = 24 * 3_600_000;
const NOTIFY_SEND_TIMEOUT_MS = 30_000;
const NOTIFY_CONCURRENCY = 8;
/** A watch job's delay: it only matters when a sender died between taking the lead and queueing. */
const NOTIFY_WATCH_MS = 15_000;

export interface NotifyRetry {
  attempts: number;
  backoff: Backoff;
}

export const NOTIFY_RETRY: NotifyRetry = {
  attempts: attemptsWithin(NOTIFY_RETRY_WINDOW_MS, NOTIFY_BACKOFF),
  backoff: NOTIFY_BACKOFF,
};

/**
 * A parked job is woken by Redis's own timer, which ticks every 100 ms (hz 10) while Redis has
 * nothing else to do, and by BullMQ some milliseconds late under load. So a lead parks until this
 * long before its slot and waits the rest in process (holding its worker slot that long at most):
 * it sends at the slot, not up to 100 ms after it.
 */
const PARK_EARLY_MS = 250;

interface NotifyJob {
  conversation: ConversationRef;
  /** The notice's number in its conversation's mailbox. */
  seq: number;
  /** `attemptsMade` when this run's send slot was reserved; a retry or the next batch reserves anew. */
  pacedAt: number;
  /** When the reserved slot comes (this process's clock, epoch ms); absent in jobs of older releases. */
  slotAt?: number;
  /** When the platform first answered "too many" for this batch (epoch ms); cleared by a send. */
  limitedSince?: number;
}

export interface NotifierOptions {
  store: Store;
  retry?: NotifyRetry;
  /** How long a watch job waits before it checks that a sender is at work (default `NOTIFY_WATCH_MS`). */
  watchMs?: number;
  /**
   * Sentinel and Cluster: called before a post's first store write; the check it answers runs
   * after the last one and throws unless a replica holds them too, on the master that took them
   * (see `replica-ack.ts`). A post that straddled a failover then fails, and its caller's retry
   * finds the notice, or stores it again, and makes sure it is sent.
   */
  durable?: AfterStore;
}

export function createNotifier(queues: JobQueue, options: NotifierOptions): Notifier {
  const retry = options.retry ?? NOTIFY_RETRY;
  const watchMs = options.watchMs ?? NOTIFY_WATCH_MS;
  return {
    async post(conversation, reply, dedupKey, postOptions) {
      const confirm = options.durable?.();
      const lane: Lane = postOptions?.priority === "low" ? "low" : "first";
      const box = notifyBox(options.store, conversation, NOTIFY_DEDUP_TTL_MS, lane);
      const mark = dedupKey === undefined ? undefined : `notify:dedup:${dedupKey}`;
      const { seq, appended } = await box.append(encodeReply(reply), mark);
      // A repeat (a re-sent webhook, a retried job) of a notice still waiting: its first post may
      // have failed before its sender was queued, so it makes sure of one too.
      if (appended || (await box.state()).sent < seq) {
        await startSending(
          queues,
          box,
          { conversation, seq, pacedAt: -1 },
          { ...retry, watchMs, repeat: !appended },
        );
      }
      await confirm?.();
    },
    async pending(conversation) {
      const state = await notifyBox(options.store, conversation, NOTIFY_DEDUP_TTL_MS).state();
      return state.last > state.sent;
    },
  };
}

/**
 * Nobody sends for the conversation: this notice's job leads. Someone does: it will take this
 * notice too (a lead checks for more before it lets go), and a watch job, one per conversation
 * and `watchMs`, takes over should that sender be gone. A repeat also queues the lead's job again
 * at once (nothing when it is there), in case the first post lost it.
 */
async function startSending(
  queues: JobQueue,
  box: NotifyBox,
  job: NotifyJob,
  o: NotifyRetry & { watchMs: number; repeat: boolean },
): Promise<void> {
  const key = mailboxKey(job.conversation);
  const leadId = `notify:${key}:${box.lane === "low" ? "low:" : ""}${job.seq}`;
  const retry = { attempts: o.attempts, backoff: o.backoff, replicated: true };
  if (await box.tryLead(leadId)) {
    try {
      await queues.add(NOTIFY_QUEUE, "notify", job, { jobId: leadId, ...retry });
    } catch (error) {
      await box.release(leadId).catch(() => {});
      throw error;
    }
    return;
  }
  if (o.repeat) await reviveLead(queues, box, job, retry);
  const watchId = `notify-watch:${key}:${Math.floor(Date.now() / o.watchMs)}`;
  await queues.add(NOTIFY_QUEUE, "watch", job, { jobId: watchId, delayMs: o.watchMs, ...retry });
}

/**
 * Queues the lead holder's job under its own id: nothing when it is queued or running; when a
 * failover lost it, it runs again and sends what waits (the lead mark names it).
 */
async function reviveLead(
  queues: JobQueue,
  box: NotifyBox,
  job: NotifyJob,
  retry: AddOptions,
): Promise<void> {
  const holder = await box.leader();
  if (holder !== null)
    await queues.add(NOTIFY_QUEUE, "notify", { ...job, pacedAt: -1 }, { ...retry, jobId: holder });
}

export interface NotifyWorkerOptions {
  adapters: ReadonlyMap<Platform, ChatAdapter>;
  /** What each platform is like: its pace and the size of one message (a digest fills it). */
  platforms: ReadonlyMap<Platform, PlatformFacts>;
  /** The notifier's store: the mailboxes live there. */
  store: Store;
  logger: Logger;
  concurrency?: number;
  /** A send that hangs longer counts as failed (and is retried), so it cannot hold a worker slot. */
  sendTimeoutMs?: number;
  /** The gap between two posts into a conversation (default: its platform's `sendGapMs`). */
  gapMs?: (conversation: ConversationRef) => number;
  /** Told of every failed send, retried or not (metrics). */
  onSendFailure?: (platform: Platform) => void;
  /** How often a watch job looks again while a live sender has notices to send. */
  watchMs?: number;
  /** The attempts and backoff of a lead's job queued again by a watch job (as the notifier's). */
  retry?: NotifyRetry;
  /** Told of the message id one notice got (alerts record where they are shown); never fails a send. */
  onPosted?: (conversation: ConversationRef, reply: Reply, messageId: string) => Promise<void>;
  /** Blocks a digest carries after its list (alerts add buttons for the alerts it lists). */
  digestExtras?: (conversation: ConversationRef, replies: readonly Reply[]) => Promise<Block[]>;
  /** The clock a send slot is read on (tests drive it; the slots themselves come from `pace`). */
  now?: Clock;
  /** How a lead waits in process for its slot; tests with a fake clock pass one that moves it. */
  sleep?: (ms: number) => Promise<void>;
}

export function startNotifyWorker(queues: JobQueue, options: NotifyWorkerOptions): Promise<JobWorker> {
  const deliver = createDeliver(queues, options);
  return queues.process<NotifyJob>(NOTIFY_QUEUE, deliver, {
    concurrency: options.concurrency ?? NOTIFY_CONCURRENCY,
  });
}

type Outcome = JobOutcome<NotifyJob>;

function createDeliver(queues: JobQueue, options: NotifyWorkerOptions) {
  const send = createSender(queues, options);
  const retry = options.retry ?? NOTIFY_RETRY;
  return async (job: JobContext<NotifyJob>): Promise<Outcome> => {
    const { conversation } = job.data;
    const box = notifyBox(options.store, conversation, NOTIFY_DEDUP_TTL_MS);
    // The lead survives a retry (the job's id stays): go on sending.
    if (await box.holds(job.id)) return send(job, box);
    // A watch job (or a lead that lost its mark): all sent, or someone sends, or it leads now.
    if ((await waiting(options.store, conversation)) === undefined) return "done";
    if (!(await box.tryLead(job.id))) {
      await reviveLead(queues, box, job.data, { ...retry, replicated: true });
      return { laterMs: options.watchMs ?? NOTIFY_WATCH_MS };
    }
    return send({ ...job, data: { ...job.data, pacedAt: -1 } }, box);
  };
}

/** The lane whose notices go next, and its state: `first` before `low`; undefined when all are sent. */
async function waiting(
  store: Store,
  conversation: ConversationRef,
): Promise<{ box: NotifyBox; state: BoxState } | undefined> {
  for (const lane of ["first", "low"] as const) {
    const box = notifyBox(store, conversation, NOTIFY_DEDUP_TTL_MS, lane);
    const state = await box.state();
    if (state.last > state.sent) return { box, state };
  }
  return undefined;
}

/** The lead job's run: wait for the channel's slot, post what waited, and go on while more waits. */
function createSender(queues: JobQueue, options: NotifyWorkerOptions) {
  const gapMs =
    options.gapMs ?? ((c: ConversationRef) => platformFacts(options.platforms, c.platform).sendGapMs(c));
  const timeoutMs = options.sendTimeoutMs ?? NOTIFY_SEND_TIMEOUT_MS;
  const now = options.now ?? systemClock;
  const wait = options.sleep ?? sleep;
  /** Reserves the channel's next slot: parks the job until just before it when it is far. */
  const nextSlot = async (
    job: JobContext<NotifyJob>,
  ): Promise<{ laterMs: number; data: NotifyJob } | NotifyJob> => {
    const gap = gapMs(job.data.conversation);
    const waitMs = await queues.pace(paceKey(job.data.conversation), gap);
    const data = { ...job.data, pacedAt: job.attemptsMade, slotAt: now() + waitMs };
    return waitMs > PARK_EARLY_MS ? { laterMs: waitMs - PARK_EARLY_MS, data } : data;
  };
  /** Waits in process for the slot; true when it waited. Capped: the slot may be another instance's clock. */
  const untilSlot = async (job: JobContext<NotifyJob>): Promise<boolean> => {
    const waitMs = Math.min((job.data.slotAt ?? 0) - now(), PARK_EARLY_MS);
    if (waitMs <= 0) return false;
    await wait(waitMs);
    return true;
  };
  return async function lead(job: JobContext<NotifyJob>, place: NotifyBox): Promise<Outcome> {
    const { store } = options;
    await place.refresh(job.id);
    let next = await waiting(store, job.data.conversation);
    if (next === undefined) {
      await place.release(job.id);
      // A notice posted while releasing found the lead taken: take it back for it.
      next = await waiting(store, job.data.conversation);
      if (next === undefined || !(await place.tryLead(job.id))) return "done";
    }
    // A slot is reserved once per batch (and again after a failed attempt).
    if (job.data.pacedAt !== job.attemptsMade) {
      const slot = await nextSlot(job);
      if ("laterMs" in slot) return slot;
      job = { ...job, data: slot };
    }
    // What came while waiting for the slot goes out in it: the mailbox is read at the slot.
    if (await untilSlot(job)) next = (await waiting(store, job.data.conversation)) ?? next;
    const { box, state } = next;
    const { conversation } = job.data;
    const limits = platformFacts(options.platforms, conversation.platform).limits;
    const batch = await gatherBatch(box, state, gapMs(conversation) > 0 ? limits : undefined);
    try {
      if (batch.notices.length > 0) await sendBatch(options, conversation, batch.notices, timeoutMs);
    } catch (error) {
      const wait = await toldToWait(job, place, error);
      if (wait !== undefined) return wait;
      return failed(job, place, { box, state, end: batch.end, error });
    }
    await box.advance(state.sent, batch.end);
    // What came meanwhile gets the next slot; with nothing left, the lead is released.
    const data = { ...job.data, pacedAt: -1, slotAt: undefined, limitedSince: undefined };
    return lead({ ...job, data }, place);
  };

  /**
   * The platform said "too many, retry after N": the channel's first slot after N is this lead's
   * (every thread and instance of the channel waits behind it), and the job parks until then
   * without spending an attempt. Past the retry window it counts as a failure again.
   */
  async function toldToWait(job: JobContext<NotifyJob>, place: NotifyBox, error: unknown) {
    const retryAfterMs = retryAfterMsOf(error);
    if (retryAfterMs === undefined || isPermanentError(error)) return undefined;
    const limitedSince = job.data.limitedSince ?? now();
    if (now() - limitedSince > NOTIFY_RETRY_WINDOW_MS) return undefined;
    logFailure(options.logger, job, error);
    options.onSendFailure?.(job.data.conversation.platform);
    const { conversation } = job.data;
    const waitMs = await queues.pace(paceKey(conversation), gapMs(conversation), retryAfterMs);
    await place.refresh(job.id, waitMs + NOTIFY_BACKOFF.maxDelayMs);
    const data = { ...job.data, pacedAt: job.attemptsMade, slotAt: now() + waitMs, limitedSince };
    return { laterMs: Math.max(0, waitMs - PARK_EARLY_MS), data };
  }

  async function failed(
    job: JobContext<NotifyJob>,
    place: NotifyBox,
    f: { box: NotifyBox; state: BoxState; end: number; error: unknown },
  ): Promise<never> {
    logFailure(options.logger, job, f.error);
    options.onSendFailure?.(job.data.conversation.platform);
    const retryAfterMs = retryAfterMsOf(f.error);
    // The platform said wait: the whole channel waits, every thread and instance with it.
    if (retryAfterMs !== undefined) await queues.pace(paceKey(job.data.conversation), retryAfterMs);
    if (isPermanentError(f.error) || job.attemptsMade + 1 >= job.maxAttempts) {
      // Dropped (logged above): the next notices get their own chance.
      await f.box.advance(f.state.sent, f.end);
      await place.release(job.id);
    } else {
      await place.refresh(job.id, (retryAfterMs ?? 0) + NOTIFY_BACKOFF.maxDelayMs);
    }
    throw f.error;
  }
}

/** One message's worth: a notice alone, or as many as fit one digest of `limits` (undefined: never). */
async function gatherBatch(box: NotifyBox, state: BoxState, limits: MessageLimits | undefined) {
  let budget = limits === undefined ? 0 : digestBudget(limits);
  let digestible = false;
  return box.gather(state, (notice, taken) => {
    const reply = decodeReply(notice.reply);
    const cost = digestCost(reply);
    // A reply that takes the place of a message (a Confirm's outcome) is sent alone, as an edit.
    const alone = reply.replaces !== undefined;
    if (taken.length === 0) {
      digestible = limits !== undefined && !alone && canDigest(reply);
      budget -= cost;
      return true;
    }
    if (!digestible || alone || !canDigest(reply) || cost > budget) return false;
    budget -= cost;
    return true;
  });
}

async function sendBatch(
  options: NotifyWorkerOptions,
  conversation: ConversationRef,
  notices: readonly Notice[],
  timeoutMs: number,
): Promise<void> {
  const adapter = options.adapters.get(conversation.platform);
  if (adapter === undefined) throw new PermanentJobError(`no ${conversation.platform} adapter is configured`);
  const replies = notices.map((n) => decodeReply(n.reply));
  const [only] = replies;
  if (replies.length === 1 && only?.replaces !== undefined && adapter.replace !== undefined) {
    // An edit of the same message: a retry, or a second delivery of the outcome, shows it once.
    const { replaces, ...reply } = only;
    const sent = await withTimeout(adapter.replace(conversation, replaces, reply), timeoutMs);
    await told(options, conversation, only, sent.messageId);
    return;
  }
  const reply = replies.length === 1 ? replies[0]! : await digestOf(options, conversation, replies);
  const sent = await withTimeout(adapter.send(conversation, reply), timeoutMs);
  if (replies.length === 1) await told(options, conversation, reply, sent.messageId);
}

async function digestOf(
  options: NotifyWorkerOptions,
  conversation: ConversationRef,
  replies: readonly Reply[],
): Promise<Reply> {
  const digest = renderNoticeDigest(replies, platformFacts(options.platforms, conversation.platform).limits);
  const extras = await options.digestExtras?.(conversation, replies).catch((error: unknown) => {
    options.logger.warn({ err: error }, "could not add the digest's buttons; it is sent without them");
    return [];
  });
  return extras && extras.length > 0 ? { ...digest, blocks: [...digest.blocks, ...extras] } : digest;
}

async function told(
  options: NotifyWorkerOptions,
  conversation: ConversationRef,
  reply: Reply,
  messageId: string | undefined,
): Promise<void> {
  if (options.onPosted === undefined || messageId === undefined || messageId === "") return;
  await options.onPosted(conversation, reply, messageId).catch((error: unknown) => {
    options.logger.warn({ err: error }, "could not record where a message was posted");
  });
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

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  within(promise, ms, () => {
    throw Object.assign(new Error(`send timed out after ${ms} ms`), { code: "send_timeout" });
  });
