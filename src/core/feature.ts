import type { NotificationEvent, NotificationOf } from "../service/webhook-events.js";
import type { ActionHandler, CommandDefinition } from "./command.js";
import type { CoreDeps } from "./deps.js";
import type { ConversationRef } from "./invocation.js";
import type { NotificationDefinition } from "./notices/definition.js";
import type { ParseResult } from "./parse/result.js";
import type { PollAnswer } from "./poll.js";
import type { TrackedJob } from "./ports.js";
import type { DeclaredSpend } from "./spend/definition.js";

export type TrackedKind = TrackedJob["kind"];
export type TrackedHandler<K extends TrackedKind> = (
  job: Extract<TrackedJob, { kind: K }>,
) => Promise<PollAnswer>;

/** What a tracked handler is made with: the core's deps and every action handler (recovery runs them). */
export interface TrackedContext {
  deps: CoreDeps;
  actions: readonly ActionHandler[];
}

/**
 * A form for a command typed without arguments (a Slack modal; on Telegram a ForceReply prompt):
 * what it gathers becomes the command line, checked by the command's own parser.
 */
export interface FormField {
  /** The field's id (Slack `block_id`). */
  name: string;
  label: string;
  placeholder: string;
  optional?: boolean;
  hint?: string;
  /**
   * Free text (a reason): kept as typed, trimmed, as one value (never split into words), at most
   * this many characters; several lines where the platform allows (a Slack multi-line input).
   */
  freeText?: { maxChars: number };
}

export interface FormSpec {
  verb: string;
  /** ≤ 24 characters (Slack's limit on a modal title). */
  title: string;
  submit: string;
  fields: readonly FormField[];
  /** The one-message version (Telegram ForceReply): what to answer, with an example. */
  prompt: string;
  /** What the reply field shows before typing. */
  placeholder: string;
  /** The command's own parser over the words of the fields, in order. */
  check(args: string[], today: Date): ParseResult<unknown>;
  /** Which field a refusal of `check` is about (Slack shows the line under it). */
  fieldOf(values: Readonly<Record<string, string>>, today: Date): string;
}

/** What a feature's scheduled jobs are made with. */
interface ScheduleContext {
  deps: CoreDeps;
  /** The alert destination (ALERT_SLACK_CHANNEL / ALERT_TELEGRAM_CHAT, the console). */
  alerts: readonly ConversationRef[];
}

/**
 * Work the wiring runs on a schedule, once across every instance. `ticker`: a run answers the delay
 * to the next (the runway check, the daily digest; src/jobs/ticker.ts). `every`: a fixed interval on
 * a queue of its own, `name` (the watchlist poll; a failed run is logged and the next one comes).
 */
export type ScheduledJob =
  | { kind: "ticker"; name: string; firstDelayMs: number; retryMs: number; run(): Promise<number> }
  | { kind: "every"; name: string; everyMs: number; run(): Promise<void> };

/**
 * One feature of the bot, as its folder exports it (src/core/<feature>/feature.ts): its commands,
 * its buttons, the tracked work it hands to the job system, the events the service sends about it.
 * The core lists the features in one place (src/core/features.ts); the command, tracking and
 * notification registries are read from that list.
 */
export interface FeatureDefinition<K extends TrackedKind = never, E extends NotificationEvent = never> {
  name: string;
  /** Its verbs, in the order help lists them. */
  commands?: readonly CommandDefinition[];
  /** Its button kinds (besides its spends' Confirm buttons). */
  actions?: readonly ActionHandler[];
  /**
   * Its spends and guarded actions (src/core/spend/definition.ts): the one pipeline makes their
   * Confirm buttons, and approvals find them by name; and what it is charged without a Confirm
   * (a `ChargeDefinition`: a paid screening, a re-screen, a Host Mode cycle), checked and recorded
   * by the same pipeline (src/core/spend/charge.ts).
   */
  spends?: readonly DeclaredSpend[];
  /** One handler per kind of tracked work it schedules. */
  tracked?: { [P in K]: (ctx: TrackedContext) => TrackedHandler<P> };
  /** Its scheduled jobs, for this configuration (none when switched off). */
  scheduled?: (ctx: ScheduleContext) => readonly ScheduledJob[];
  /** Its forms for missing arguments (src/core/forms/forms.ts opens them). */
  forms?: readonly FormSpec[];
  /** One definition per incoming event it receives, by event name. */
  notifications?: { [P in E]: NotificationDefinition<NotificationOf<P>> };
}

/** Keeps the tracked kinds and event names a feature covers in its type (features.ts checks them all). */
export function defineFeature<K extends TrackedKind = never, E extends NotificationEvent = never>(
  feature: FeatureDefinition<K, E>,
): FeatureDefinition<K, E> {
  return feature;
}

/** The tracked kinds / event names a list of features covers. */
export type TrackedKindsOf<F> = F extends { tracked?: infer T } ? keyof NonNullable<T> : never;
export type NotificationEventsOf<F> = F extends { notifications?: infer T } ? keyof NonNullable<T> : never;
/** Compiles only when `Missing` is empty: the error names what is missing. */
export type NoneMissing<Missing extends never> = Missing;
