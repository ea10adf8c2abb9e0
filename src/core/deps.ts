import type { Clock } from "../clock.js";
import type { ServiceClient } from "../service/client.js";
import type { Store } from "../store/store.js";
import type { ConversationRef, Platform } from "./invocation.js";
import type { Logger } from "./logger.js";
import type { CoreObserver } from "./observer.js";
import type { ChatAdapter, JobScheduler, Notifier, PlatformFacts } from "./ports.js";
import type { SpendLifecycle } from "./spend-lifecycle.js";

/** The settings the core reads; `src/config.ts` builds them from the environment. */
export interface CoreSettings {
  /** PUBLIC_URL: how the outside world reaches the bot (callback URLs); unset in the demo. */
  publicUrl?: string;
  /** HOST_CALLBACK_TOKEN: the secret path segment of the Host Mode callback URL. */
  hostCallbackToken: string;
  /** OPS_MAX_ORDER_TRX as a decimal string; unset: no cap. */
  maxOrderTrx?: string;
  /** OPS_DAILY_LIMIT_TRX as a decimal string; unset: no cap. */
  dailyLimitTrx?: string;
  /** OPS_APPROVAL_TRX as a decimal string; unset: one Confirm is enough. */
  approvalTrx?: string;
  /** OPS_APPROVAL_TTL_MIN in milliseconds (default 15 minutes). */
  approvalTtlMs?: number;
  /** OPS_SCHEDULE_GRACE_MIN in milliseconds (default 10 minutes). */
  scheduleGraceMs?: number;
  /**
   * How long a Confirm waits for the live price list and the deny-list check before it refuses
   * (default CONFIRM_CHECK_MS of src/core/spend/decide-at-confirm.ts).
   */
  confirmCheckMs?: number;
  /** OPS_ADMINS: `slack:<id>` / `telegram:<id>`. */
  admins: string[];
  /** OPS_OPERATORS: `slack:<id>` / `telegram:<id>`. */
  operators: string[];
  /** Prefix of a transaction link, e.g. `https://tronscan.org/#/transaction/`. */
  explorerTxUrl: string;
  /** Watchlists (OPS_WATCH_*); unset: the defaults of CONTRACT.md. */
  watch?: WatchSettings;
  /** Alerts (OPS_ESCALATE_MIN, OPS_ONCALL); unset: no escalation. */
  alerts?: AlertSettings;
  /** Timings of durable actions (src/core/intents/); defaults when unset. */
  intents?: IntentTimings;
  /** AML cases and certificates (OPS_CASE_LEVELS, OPS_CASE_SLA_MIN, OPS_CERT_KEY); unset: defaults, no SLA destination. */
  cases?: CaseSettings;
  /** OPS_AGENT_CHANNEL, else the alert destination: where agents' energy requests are posted. */
  agentChannel?: ConversationRef;
  /** The runway alert levels (OPS_LOW_BALANCE_TRX, OPS_RUNWAY_ALERT_HOURS): `chart balance` draws them. */
  runway?: { lowBalanceTrx?: string; alertHours?: number };
}

export interface IntentTimings {
  /** How long after a click its recovery job first looks whether the click was carried out. */
  recoverAfterMs: number;
  /** A run holds its intent this long (renewed while it runs); a dead run's lease expires after it. */
  leaseMs: number;
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
export interface WatchSettings {
  /** OPS_WATCH_INTERVAL_S in ms: how often the deny-list `revision` is read. */
  intervalMs: number;
  /** OPS_AUTO_WATCH: addresses that get energy or Host Mode through the bot are watched. */
  autoWatch: boolean;
  /** OPS_HOST_AUTOSTOP: stop Host Mode by itself when its address becomes blocked. */
  hostAutostop: boolean;
  /** OPS_WATCH_BUDGET_TRX (decimal TRX): monthly budget of re-screens; unset: re-screening off. */
  budgetTrx?: string;
  /** OPS_WATCH_SCORE_DELTA: a re-screen score move that is worth an alert. */
  scoreDelta: number;
}

/** The alert settings (CONTRACT.md: OPS_ESCALATE_MIN, OPS_ONCALL). */
export interface AlertSettings {
  /** OPS_ESCALATE_MIN in ms; unset: no escalation. */
  escalateMs?: number;
  /** OPS_ONCALL: `slack:U…`, `slack:S…` (a user group), `telegram:@username`. */
  oncall: readonly string[];
}

/** The case settings (CONTRACT.md: OPS_CASE_LEVELS, OPS_CASE_SLA_MIN, OPS_CERT_KEY). */
export interface CaseSettings {
  /** OPS_CASE_LEVELS: the `risk.level` values that open a case. */
  levels: readonly string[];
  /** OPS_CASE_SLA_MIN in ms. */
  slaMs: number;
  /** The certificates' HMAC key (OPS_CERT_KEY, else derived from SERVICE_API_KEY), hex. Never shown. */
  certKeyHex: string;
  /** The alert destination: where a case's message goes. */
  destinations: readonly ConversationRef[];
}
