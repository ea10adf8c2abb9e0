import type { Env } from "./variables.js";

/**
 * What the core reads of the environment, and where: each variable's value as declared in
 * `variables.ts`, already checked, defaulted and in the core's unit (durations in ms, amounts as
 * decimal TRX strings, lists). `CoreSettings` (src/core/deps.ts) is this type plus what the wiring
 * adds; nothing copies or converts these fields again.
 */
export function coreSettingsOf(env: Env) {
  return {
    /** OPS_ADMINS: `slack:<id>` / `telegram:<id>` (the wiring adds the console user). */
    admins: env.OPS_ADMINS,
    /** OPS_OPERATORS: `slack:<id>` / `telegram:<id>`. */
    operators: env.OPS_OPERATORS,
    /** OPS_MAX_ORDER_TRX; unset: no cap. */
    maxOrderTrx: env.OPS_MAX_ORDER_TRX,
    /** OPS_DAILY_LIMIT_TRX; unset: no cap. */
    dailyLimitTrx: env.OPS_DAILY_LIMIT_TRX,
    /**
     * OPS_ACTIVATION_TRX: what the caps hold for activating an address not known active, until an
     * order shows a larger fee; unset: only a fee an order showed.
     */
    activationTrx: env.OPS_ACTIVATION_TRX,
    /** OPS_APPROVAL_TRX; unset: one Confirm is enough. */
    approvalTrx: env.OPS_APPROVAL_TRX,
    /** OPS_APPROVAL_TTL_MIN: how long an approval request stays valid. */
    approvalTtlMs: env.OPS_APPROVAL_TTL_MIN,
    /** OPS_SCHEDULE_GRACE_MIN: how late a missed standing-order run may still be done. */
    scheduleGraceMs: env.OPS_SCHEDULE_GRACE_MIN,
    /** OPS_DIGEST_AT as minutes after 00:00 UTC; unset: no scheduled digest. */
    digestAtMin: env.OPS_DIGEST_AT,
    /** Balance runway alerts (`chart balance` draws the levels too). */
    runway: {
      /** OPS_LOW_BALANCE_TRX; unset: no balance alert. */
      lowBalanceTrx: env.OPS_LOW_BALANCE_TRX,
      /** OPS_RUNWAY_ALERT_HOURS, in hours as people read it; unset: no runway alert. */
      alertHours: env.OPS_RUNWAY_ALERT_HOURS,
      /** OPS_RUNWAY_INTERVAL_MIN: how often the balance is checked. */
      intervalMs: env.OPS_RUNWAY_INTERVAL_MIN,
    },
    watch: {
      /** OPS_WATCH_INTERVAL_S: how often the deny-list `revision` is read. */
      intervalMs: env.OPS_WATCH_INTERVAL_S,
      /** OPS_AUTO_WATCH: addresses that get energy or Host Mode through the bot are watched. */
      autoWatch: env.OPS_AUTO_WATCH,
      /** OPS_HOST_AUTOSTOP: stop Host Mode by itself when its address becomes blocked. */
      hostAutostop: env.OPS_HOST_AUTOSTOP,
      /** OPS_WATCH_BUDGET_TRX: monthly budget of re-screens; unset: re-screening off. */
      budgetTrx: env.OPS_WATCH_BUDGET_TRX,
      /** OPS_WATCH_SCORE_DELTA: a re-screen score move that is worth an alert. */
      scoreDelta: env.OPS_WATCH_SCORE_DELTA,
    },
    alerts: {
      /** OPS_ESCALATE_MIN; unset: no escalation. */
      escalateMs: env.OPS_ESCALATE_MIN,
      /** OPS_ONCALL: `slack:U…`, `slack:S…` (a user group), `telegram:@username`. */
      oncall: env.OPS_ONCALL,
    },
    /** OPS_AGENT_TOKENS' optional fourth field: each agent's daily TRX budget, by agent name. */
    agentDailyTrx: Object.fromEntries(
      env.OPS_AGENT_TOKENS.flatMap((t) => (t.dailyTrx === undefined ? [] : [[t.name, t.dailyTrx] as const])),
    ) as Readonly<Record<string, string>>,
    ledger: {
      /** OPS_AUDIT_RETENTION_DAYS: days the spend ledger keeps (whole days are dropped). */
      retentionDays: env.OPS_AUDIT_RETENTION_DAYS,
    },
    cases: {
      /** OPS_CASE_LEVELS: the `risk.level` values that open a case. */
      levels: env.OPS_CASE_LEVELS,
      /** OPS_CASE_SLA_MIN: how long a case may stay untaken before it is escalated. */
      slaMs: env.OPS_CASE_SLA_MIN,
    },
  };
}

export type EnvCoreSettings = ReturnType<typeof coreSettingsOf>;
