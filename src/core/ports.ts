import type { ConversationRef, Platform } from "./invocation.js";
import type { Reply, Span } from "./reply.js";

/** How much one message of a platform holds, as the notice digest fills it. */
export interface MessageLimits {
  /** Characters of rendered text, links included, with room for escaping. */
  maxChars: number;
  /** Text blocks of at most this many characters (one Slack section holds 3000). */
  blockChars: number;
}

/**
 * What a chat platform is like, as far as the core and the notification jobs need to know: its
 * message size, its pace, where a message's follow-ups go, its users' home screen. Each adapter
 * declares its platform's facts once, as a constant (`adapters/<platform>/platform.ts`); the wiring
 * hands them to the core (`CoreDeps.platforms`) and the notify worker, so neither knows a platform.
 */
export interface PlatformFacts {
  readonly platform: Platform;
  /** What a command is typed after (`/` for a slash command, nothing for a bare line). */
  readonly commandPrefix: string;
  /** How a message mentions `who`, an OPS_ONCALL entry's part after `<platform>:`. */
  mention(who: string): Span;
  /** One person holds the whole platform (the console): no second person can approve there. */
  readonly onePerson?: boolean;
  /** One message's size: a digest of waiting notices is packed to fit it. */
  readonly limits: MessageLimits;
  /** The least gap (ms) between two posts into `conversation` (its threads share it); 0: no pace. */
  sendGapMs(conversation: ConversationRef): number;
  /**
   * Where the messages that follow up message `messageId` of the conversation go, kept together
   * with it (a thread, a reply), or the conversation itself where the platform has neither.
   */
  followUp(conversation: ConversationRef, messageId: string): ConversationRef;
  /**
   * Where a message goes that everyone in the conversation sees and that answers message
   * `messageId` (an escalation of the alert told there), linked to it where the platform can
   * do that without hiding it in a thread.
   */
  visibleAnswer(conversation: ConversationRef, messageId: string | undefined): ConversationRef;
  /**
   * A user's own view of the bot (Slack's App Home) as a conversation id: buttons shown there are
   * bound to it, and a notice posted to it shows the view again. Absent: the platform has none.
   */
  readonly home?: {
    conversationId(userId: string): string;
    /** The user whose home `conversationId` is; undefined for any other conversation. */
    userOf(conversationId: string): string | undefined;
  };
}

/** What a chat platform must offer the core and the notification jobs. Adapters implement it. */
export interface ChatAdapter {
  readonly platform: Platform;
  /** Posts a reply into a conversation; returns the platform's message id. */
  send(conversation: ConversationRef, reply: Reply): Promise<{ messageId: string }>;
  /**
   * Puts `reply` in place of message `messageId` of the conversation (Slack `chat.update`,
   * Telegram `editMessageText`); where the platform refuses the edit (the message was deleted or
   * is too old), posts it as a new message. Doing it twice leaves one message. Optional: without
   * it the notifier posts a new message.
   */
  replace?(conversation: ConversationRef, messageId: string, reply: Reply): Promise<{ messageId: string }>;
  /**
   * A link to message `messageId` of the conversation, where the platform has one (a Slack archive
   * link, a Telegram supergroup's `t.me/c/…`); undefined where it has none. Optional: no links.
   */
  messageLink?(conversation: ConversationRef, messageId: string): string | undefined;
}

/**
 * A send (or replace) a chat platform refused or could not take: what both adapters throw from
 * `ChatAdapter.send` / `replace`, and what the notify queue reads to decide. `code` is the
 * platform's reason (`channel_not_found`, `ratelimited`, `telegram_chat_gone`…); `retryable` false
 * means the same request will always be refused (the job stops); `retryAfterMs` is the platform's
 * own wait (a 429), which the queue never undercuts. The message never contains a token.
 */
export class ChatSendError extends Error {
  override readonly name: string = "ChatSendError";
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    failure: { code: string; retryable: boolean; retryAfterMs?: number | undefined; cause?: unknown },
  ) {
    super(message, failure.cause === undefined ? undefined : { cause: failure.cause });
    this.code = failure.code;
    this.retryable = failure.retryable;
    if (failure.retryAfterMs !== undefined) this.retryAfterMs = failure.retryAfterMs;
  }
}

/**
 * The lifecycle every chat adapter (Slack, Telegram, console) shares, so the wiring starts, watches
 * and stops them in one loop. Kept apart from `ChatAdapter`: the core and the jobs only send.
 */
export interface ChatAdapterLifecycle {
  /** Connects to the platform (token check, webhook or polling, socket). */
  start(): Promise<void>;
  /** True while it takes requests and can answer them (feeds /healthz). */
  ready(): boolean;
  /** Stops taking requests and finishes the ones in flight, waiting at most `timeoutMs`. */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Posts into a conversation later (results of pending orders, webhooks). Implemented by a durable
 * job queue, so a chat outage or a restart delays a message and never loses it.
 */
interface PostOptions {
  /**
   * `low`: waits behind every other notice of its conversation (an agent's request), so people's
   * answers, alerts and delivery notices there are never paced behind it.
   */
  priority?: "low";
}

export interface Notifier {
  /** `dedupKey` makes a repeated notification (a replayed webhook, a re-polled result) post once. */
  post(conversation: ConversationRef, reply: Reply, dedupKey?: string, options?: PostOptions): Promise<void>;
  /**
   * True while something posted into this conversation is still waiting to be sent: an answer
   * that comes meanwhile queues behind it instead of overtaking it.
   */
  pending?(conversation: ConversationRef): Promise<boolean>;
}

/** Tracked work the core hands to the job system: polling pending orders, watching deliveries. */
export type TrackedJob =
  | { kind: "poll-screening"; clientOrderId: string; conversation: ConversationRef; attempt?: number }
  | { kind: "poll-statement"; orderNo: string; conversation: ConversationRef; attempt?: number }
  | { kind: "poll-orchestrator"; idempotencyKey: string; conversation: ConversationRef; attempt?: number }
  /** Follows a payout run (one orchestrator order of many addresses), editing its progress message. */
  | { kind: "poll-payout"; idempotencyKey: string; conversation: ConversationRef; attempt?: number }
  | { kind: "watch-delivery"; orderId: string; address: string; conversation: ConversationRef }
  /** Carries out a confirmed spend whose process died, or posts its outcome (src/core/intents/). */
  | {
      kind: "recover-intent";
      confirmationId: string;
      conversation: ConversationRef;
      attempt?: number;
      /** Handed over at the click (too many running in that process), not left by a dead one. */
      handover?: true;
      /**
       * The click's own job: until then (ms since the epoch) an outcome already stored is left to
       * the instance delivering it; only a run with no outcome and no lease (a dead one) is taken over.
       */
      deliverBy?: number;
    }
  /** Asks order5m again with the same key until the outcome of a confirmed order is known. */
  | { kind: "reconcile-order5m"; confirmationId: string; conversation: ConversationRef; attempt?: number }
  /** Asks infinitystart again until the outcome of a confirmed Host Mode start is known. */
  | { kind: "reconcile-host-start"; confirmationId: string; conversation: ConversationRef; attempt?: number }
  /** One occurrence of a standing order, its job id derived from it (src/core/schedule/). */
  | { kind: "schedule-run"; scheduleId: string; occurrence: number; attempt?: number }
  /** Escalates an alert still unacknowledged after OPS_ESCALATE_MIN (src/core/alerts/). */
  | { kind: "alert-escalate"; alertId: string; attempt?: number }
  /** Brings a snoozed alert back when its snooze is over, unless it was resolved. */
  | { kind: "alert-unsnooze"; alertId: string; until: number; attempt?: number }
  /** Escalates an AML case still untaken after OPS_CASE_SLA_MIN, once per opening (src/core/cases/). */
  | { kind: "case-sla"; caseId: string; opening: number; attempt?: number };

export interface JobScheduler {
  /** Schedules tracked work; `jobId` makes scheduling the same work twice a no-op. */
  schedule(job: TrackedJob, options: { delayMs: number; jobId: string }): Promise<void>;
  /** Drops scheduled work that is no longer needed (not yet running); optional for fakes. */
  cancel?(jobId: string): Promise<void>;
}
