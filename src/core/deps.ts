import type { Clock } from "../clock.js";
import type { EnvCoreSettings } from "../config/core-settings.js";
import type { ServiceClient } from "../service/client.js";
import type { Store } from "../store/store.js";
import type { ConversationRef, Platform } from "./invocation.js";
import type { Logger } from "./logger.js";
import type { CoreObserver } from "./observer.js";
import type { ChatAdapter, JobScheduler, Notifier, PlatformFacts } from "./ports.js";
import type { SpendLifecycle } from "./spend-lifecycle.js";
import type { UserGroupDirectory } from "./user-groups.js";

/**
 * The settings the core reads. What comes from the environment (`EnvCoreSettings`: each variable
 * declared once in src/config/variables.ts, defaulted and in the core's units, and placed by
 * src/config/core-settings.ts) arrives as it is; the wiring (src/app.ts) adds only what is not an
 * environment value. Nothing here has a default of its own.
 */
export interface CoreSettings extends EnvCoreSettings {
  /** PUBLIC_URL (the demo's own when the built-in sandbox runs): callback URLs; unset: none. */
  publicUrl?: string;
  /** HOST_CALLBACK_TOKEN, else the one generated and kept in the store: the Host Mode callback path. */
  hostCallbackToken: string;
  /** Prefix of a transaction link, e.g. `https://tronscan.org/#/transaction/`. */
  explorerTxUrl: string;
  /** Members of the user groups named in OPS_ADMINS / OPS_OPERATORS, kept by the adapters. */
  userGroups?: UserGroupDirectory;
  /** AML cases: the environment's levels and SLA, and the wiring's key and destination. */
  cases: CaseSettings;
  /** The registered platforms' alert variables (ALERT_…), for the line that asks for one. */
  alertVariables?: readonly string[];
  /** OPS_AGENT_CHANNEL, else the alert destination: where agents' energy requests are posted. */
  agentChannel?: ConversationRef;
  /**
   * Test-only: how long a Confirm waits for the live price list and the deny-list check before it
   * refuses (unset: CONFIRM_CHECK_MS of src/core/spend/decide-at-confirm.ts).
   */
  confirmCheckMs?: number;
  /** Test-only: timings of durable actions (src/core/intents/); unset: DEFAULT_INTENT_TIMINGS. */
  intents?: IntentTimings;
}

export interface IntentTimings {
  /** How long after a click its recovery job first looks whether the click was carried out. */
  recoverAfterMs: number;
  /** A run holds its intent this long (renewed while it runs); a dead run's lease expires after it. */
  leaseMs: number;
  /**
   * How soon after a click its recovery job first looks for a dead run (no outcome, no lease):
   * just past the lease, so any instance takes over a killed one's spend as soon as its lease
   * lapses. Unset: at `recoverAfterMs`.
   */
  deadRunLookMs?: number;
  /**
   * How many confirmations one process carries out at once right after their clicks; a click
   * beyond them is handed to the job queue, so a burst waits in Redis, not in memory.
   */
  maxLocalRuns?: number;
}

/**
 * Places in a Confirm where a fault-injection test may kill the process (test-only):
 * `after-reply` is between the outcome reaching the conversation and its posted mark.
 */
export type FaultPoint = "after-claim" | "after-answer" | "before-reply" | "after-reply";

/** Everything a command may use. Ports only: no platform SDK, no Redis or HTTP client. */
export interface CoreDeps {
  service: ServiceClient;
  store: Store;
  jobs: JobScheduler;
  notifier: Notifier;
  now: Clock;
  logger: Logger;
  settings: CoreSettings;
  /**
   * The chat adapters by platform, for what only they know (a link to one of their messages); the
   * core posts through `notifier`, never here. Unset or missing a platform: no links there.
   */
  chats?: ReadonlyMap<Platform, Pick<ChatAdapter, "messageLink">>;
  /**
   * What each platform is like (message size, pace, threads, home screen), as its adapter declares
   * it; a platform missing here gets plain facts (src/core/platforms.ts).
   */
  platforms: ReadonlyMap<Platform, PlatformFacts>;
  /** Told of commands handled and money spent (metrics); optional. */
  observer?: CoreObserver;
  /** Told of each step of a spend's life (quoted, ordered, refused …; src/core/spend-lifecycle.ts); optional. */
  spendLifecycle?: SpendLifecycle;
  /** Test-only fault injection: awaited at each FaultPoint; never set in production. */
  faults?: (point: FaultPoint) => Promise<void>;
}

/** The watchlist settings (CONTRACT.md: OPS_WATCH_*, OPS_AUTO_WATCH, OPS_HOST_AUTOSTOP). */
export type WatchSettings = EnvCoreSettings["watch"];

type EnvCaseSettings = EnvCoreSettings["cases"];

/** The case settings (CONTRACT.md: OPS_CASE_LEVELS, OPS_CASE_SLA_MIN, OPS_CERT_KEY). */
interface CaseSettings extends EnvCaseSettings {
  /** The certificates' HMAC key (OPS_CERT_KEY, else derived from SERVICE_API_KEY), hex. Never shown. */
  certKeyHex: string;
  /** The alert destination: where a case's message goes. */
  destinations: readonly ConversationRef[];
  /** `<PUBLIC_URL>/verify` when PUBLIC_URL is set: a certificate prints its link and QR code. */
  verifyUrl?: string;
}
