import { isIP } from "node:net";
import type { LevelWithSilent } from "pino";
import { z } from "zod";
import {
  type AgentToken,
  agentChannel,
  agentToken,
  hostPort,
  integer,
  list,
  matching,
  noTrailingSlash,
  port,
  positiveHours,
  principal,
  redisUrl,
  serviceBaseUrl,
  trailingSlash,
  trxAmount,
  utcClock,
  VISIBLE_ASCII,
  wholeFrom,
} from "./config-rules.js";

/**
 * The environment of CONTRACT.md as one zod schema. This is the only module that reads
 * `process.env`; everything else receives a `Config`. A bad value becomes one line naming the
 * variable and the rule, and never the value itself: half of these variables are secrets.
 */

type ServiceConfig =
  | { mode: "sandbox" }
  | { mode: "remote"; baseUrl: string; apiKey: string; realIp: string };

export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  /** Socket Mode when set, else HTTP at `POST /slack/events`. */
  appToken?: string;
  /** Base of the Web API, always ending in `/`. */
  apiUrl?: string;
  teamId?: string;
}

export interface TelegramConfig {
  botToken: string;
  /** Without a trailing slash, as grammY's `apiRoot` wants it. */
  apiRoot?: string;
  /** Webhook mode when set, else long polling. */
  webhookSecret?: string;
  allowedChats: number[];
}

/** A Redis node or sentinel as `host:port`. */
interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where the shared state lives: one server (REDIS_URL), a Sentinel-managed master
 * (REDIS_SENTINELS + REDIS_SENTINEL_MASTER) or a Redis Cluster (REDIS_CLUSTER_NODES).
 */
type RedisTarget =
  | { kind: "server"; url: string }
  | { kind: "sentinel"; sentinels: RedisNode[]; masterName: string; password?: string }
  | { kind: "cluster"; nodes: RedisNode[]; password?: string };

export interface Config {
  port: number;
  /** Without a trailing slash. */
  publicUrl?: string;
  service: ServiceConfig;
  /** Unset: the in-process store (one instance, demo only). */
  redisUrl?: string;
  /** Any of REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES; unset: the in-process store. */
  redis?: RedisTarget;
  slack?: SlackConfig;
  telegram?: TelegramConfig;
  /** Entries as written: `slack:<user id>` or `telegram:<user id>`. */
  roles: { admins: string[]; operators: string[] };
  alerts: { slackChannel?: string; telegramChat?: number };
  /** OPS_ESCALATE_MIN (unset: no escalation) and OPS_ONCALL (as written). */
  escalation: { escalateMin?: number; oncall: string[] };
  /** OPS_CASE_LEVELS, OPS_CASE_SLA_MIN, OPS_CERT_KEY (a secret: never logged). */
  cases: { levels: string[]; slaMin: number; certKey?: string };
  webhookSecrets: { orders: string[]; reports: string[] };
  /** Unset: generated once and kept in the store. */
  hostCallbackToken?: string;
  /** Decimal TRX strings (at most 6 decimals); unset means no cap. */
  limits: { maxOrderTrx?: string; dailyLimitTrx?: string };
  /** Money controls: two-person approval, balance runway alerts, the daily digest. */
  money: MoneyConfig;
  logLevel: LevelWithSilent;
  /** Watchlists: OPS_WATCH_INTERVAL_S, OPS_AUTO_WATCH, OPS_HOST_AUTOSTOP, OPS_WATCH_BUDGET_TRX, OPS_WATCH_SCORE_DELTA. */
  watch: {
    intervalMs: number;
    autoWatch: boolean;
    hostAutostop: boolean;
    budgetTrx?: string;
    scoreDelta: number;
  };
  /** LOG_LEVEL was given: the console demo then logs to stderr at that level instead of a file. */
  logLevelSet: boolean;
  /** Test-only knobs of the fault-injection suite (never documented for operators). */
  testing?: TestingConfig;
  /** OPS_AGENT_TOKENS (empty: `/mcp` answers 404) and OPS_AGENT_CHANNEL (unset: the alert destination). */
  agents: { tokens: AgentToken[]; channel?: { platform: "slack" | "telegram"; id: string } };
}

interface MoneyConfig {
  /** OPS_APPROVAL_TRX (decimal TRX); unset: one Confirm is enough. */
  approvalTrx?: string;
  /** OPS_APPROVAL_TTL_MIN. */
  approvalTtlMin: number;
  /** OPS_LOW_BALANCE_TRX (decimal TRX); unset: no balance alert. */
  lowBalanceTrx?: string;
  /** OPS_RUNWAY_ALERT_HOURS; unset: no runway alert. */
  runwayAlertHours?: number;
  /** OPS_RUNWAY_INTERVAL_MIN. */
  runwayIntervalMin: number;
  /** OPS_DIGEST_AT as minutes after 00:00 UTC; unset: no scheduled digest. */
  digestAtMin?: number;
  /** OPS_SCHEDULE_GRACE_MIN: how late a missed standing-order run may still be done. */
  scheduleGraceMin: number;
}

/** Set only by the fault-injection tests (test/faults/): OPSBOT_TEST_* variables. */
interface TestingConfig {
  /** OPSBOT_TEST_KILL_AT: the step of a Confirm at which the process kills itself (SIGKILL). */
  killAt?: "after-claim" | "after-answer" | "before-reply" | "after-reply";
  /** OPSBOT_TEST_INTENT_RECOVER_MS: how soon a click's recovery job runs and a dead run's lease lapses. */
  intentRecoverMs?: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code = "CONFIG_INVALID";
  constructor(readonly issues: readonly { variable: string; rule: string }[]) {
    super(issues.map((issue) => `${issue.variable}: ${issue.rule}`).join("; "));
  }
}

const DEFAULT_PORT = 3000;
const DEFAULT_APPROVAL_TTL_MIN = 15;
const DEFAULT_RUNWAY_INTERVAL_MIN = 15;
const DEFAULT_SCHEDULE_GRACE_MIN = 10;
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A string variable checked and converted by `parse`; `undefined` from it means the rule failed. */
function rule<T>(message: string, parse: (raw: string) => T | undefined) {
  return z
    .string()
    .transform((raw, ctx) => {
      const value = parse(raw);
      if (value !== undefined) return value;
      ctx.issues.push({ code: "custom", message, input: "[hidden]" });
      return z.NEVER;
    })
    .optional();
}

// Rules shared by several variables.
const visibleAscii = rule("must be visible ASCII characters without spaces", matching(VISIBLE_ASCII));
const principals = rule("must be a comma list of slack:<user id> or telegram:<user id>", list(principal));
const whsecList = rule(
  "must be a comma list of secrets that each start with whsec_",
  list(matching(/^whsec_[\x21-\x2b\x2d-\x7e]+$/)),
);
const bool = rule(
  "must be true or false",
  (raw) => ({ true: true, false: false })[raw.toLowerCase() as "true" | "false"],
);
const trx = rule("must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5", trxAmount);

const envSchema = z.object({
  PORT: rule("must be a whole number from 1 to 65535", port),
  PUBLIC_URL: rule("must be an http(s) URL such as https://bot.example.com, without query", noTrailingSlash),
  SERVICE_BASE_URL: rule(
    "must be an http(s) URL without query and without /apiv2 (each call adds it), such as https://api.example.com",
    serviceBaseUrl,
  ),
  SERVICE_API_KEY: visibleAscii,
  SERVICE_REAL_IP: rule("must be an IPv4 or IPv6 address", (raw) => (isIP(raw) ? raw : undefined)),
  REDIS_URL: rule("must be a redis:// or rediss:// URL", redisUrl),
  REDIS_SENTINELS: rule(
    "must be a comma list of host:port sentinels, such as 10.0.0.1:26379,10.0.0.2:26379",
    list(hostPort),
  ),
  REDIS_SENTINEL_MASTER: rule(
    "must be the master's name as the sentinels know it (letters, digits, . _ -)",
    matching(/^[A-Za-z0-9._-]{1,128}$/),
  ),
  REDIS_CLUSTER_NODES: rule(
    "must be a comma list of host:port cluster nodes, such as 10.0.0.1:6379,10.0.0.2:6379",
    list(hostPort),
  ),
  REDIS_PASSWORD: visibleAscii,
  SLACK_BOT_TOKEN: rule("must be a Slack bot token starting with xoxb-", matching(/^xoxb-[\x21-\x7e]+$/)),
  SLACK_SIGNING_SECRET: visibleAscii,
  SLACK_APP_TOKEN: rule(
    "must be a Slack app-level token starting with xapp-",
    matching(/^xapp-[\x21-\x7e]+$/),
  ),
  SLACK_API_URL: rule("must be an http(s) URL such as https://slack.com/api/", trailingSlash),
  SLACK_TEAM_ID: rule("must be a Slack workspace id such as T0123ABCD", matching(/^T[A-Z0-9]{2,}$/)),
  TELEGRAM_BOT_TOKEN: rule(
    "must be a bot token of the form <digits>:<token> as given by @BotFather",
    matching(/^\d+:[A-Za-z0-9_-]+$/),
  ),
  TELEGRAM_API_ROOT: rule("must be an http(s) URL such as https://api.telegram.org", noTrailingSlash),
  TELEGRAM_WEBHOOK_SECRET: rule(
    "must be 1 to 256 characters of A-Z a-z 0-9 _ -",
    matching(/^[A-Za-z0-9_-]{1,256}$/),
  ),
  TELEGRAM_ALLOWED_CHATS: rule(
    "must be a comma list of chat ids (integers, negative for groups)",
    list(integer),
  ),
  OPS_ADMINS: principals,
  OPS_OPERATORS: principals,
  ALERT_SLACK_CHANNEL: rule(
    "must be a Slack channel id such as C0123ABCD or a #channel-name",
    matching(/^([CGD][A-Z0-9]{2,}|#[a-z0-9][a-z0-9_-]{0,79})$/),
  ),
  ALERT_TELEGRAM_CHAT: rule("must be a chat id (an integer, negative for groups)", integer),
  ORDER_WEBHOOK_SECRETS: whsecList,
  REPORT_WEBHOOK_SECRETS: whsecList,
  HOST_CALLBACK_TOKEN: rule(
    "must be 16 to 256 characters of A-Z a-z 0-9 _ -",
    matching(/^[A-Za-z0-9_-]{16,256}$/),
  ),
  OPS_MAX_ORDER_TRX: trx,
  OPS_DAILY_LIMIT_TRX: trx,
  OPS_APPROVAL_TRX: trx,
  OPS_APPROVAL_TTL_MIN: rule("must be a whole number of minutes from 1 to 1440", wholeFrom(1, 1440)),
  OPS_LOW_BALANCE_TRX: trx,
  OPS_RUNWAY_ALERT_HOURS: rule(
    "must be a number of hours above 0 and at most 8760, such as 12 or 1.5",
    positiveHours,
  ),
  OPS_RUNWAY_INTERVAL_MIN: rule("must be a whole number of minutes from 1 to 1440", wholeFrom(1, 1440)),
  OPS_DIGEST_AT: rule("must be a UTC time HH:MM from 00:00 to 23:59, such as 08:30", utcClock),
  OPS_SCHEDULE_GRACE_MIN: rule("must be a whole number of minutes from 0 to 1440", wholeFrom(0, 1440)),
  OPS_ESCALATE_MIN: rule("must be a whole number of minutes from 1 to 10080", wholeFrom(1, 10_080)),
  OPS_ONCALL: rule(
    "must be a comma list of slack:<user id>, slack:<user group id> (S…) or telegram:@<username>",
    list(matching(/^(slack:[UWS][A-Z0-9]{2,}|telegram:@[A-Za-z0-9_]{5,32})$/)),
  ),
  OPS_CASE_LEVELS: rule(
    "must be a comma list of risk levels such as high,severe (letters only)",
    list(matching(/^[a-z]{1,20}$/)),
  ),
  OPS_CASE_SLA_MIN: rule("must be a whole number of minutes from 1 to 10080", wholeFrom(1, 10_080)),
  OPS_CERT_KEY: rule("must be at least 32 visible characters", matching(/^[\x21-\x7e]{32,512}$/)),
  OPS_WATCH_INTERVAL_S: rule("must be a whole number of seconds, at least 5", (raw) => {
    const n = integer(raw);
    return n !== undefined && n >= 5 ? n : undefined;
  }),
  OPS_AUTO_WATCH: bool,
  OPS_HOST_AUTOSTOP: bool,
  OPS_WATCH_BUDGET_TRX: trx,
  OPS_WATCH_SCORE_DELTA: rule("must be a positive number such as 1 or 0.5", (raw) =>
    /^\d{1,4}(\.\d{1,4})?$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined,
  ),
  LOG_LEVEL: rule(`must be one of ${LOG_LEVELS.join(", ")}`, (raw) =>
    LOG_LEVELS.find((level) => level === raw.toLowerCase()),
  ),
  OPS_AGENT_TOKENS: rule(
    "must be a comma list of <name>:<scope>:<token>: name of a-z 0-9 - (1 to 32), scope read or request, token at least 32 visible characters (no comma), each name once",
    (raw) => {
      const tokens = list(agentToken)(raw);
      return tokens && new Set(tokens.map((t) => t.name)).size === tokens.length ? tokens : undefined;
    },
  ),
  OPS_AGENT_CHANNEL: rule(
    "must be slack:<channel id> (such as slack:C0123ABCD) or telegram:<chat id> (such as telegram:-1001234)",
    agentChannel,
  ),
  OPSBOT_TEST_KILL_AT: rule("must be after-claim, after-answer, before-reply or after-reply", (raw) =>
    (["after-claim", "after-answer", "before-reply", "after-reply"] as const).find((point) => point === raw),
  ),
  OPSBOT_TEST_INTENT_RECOVER_MS: rule("must be a whole number of milliseconds from 100", (raw) => {
    const ms = integer(raw);
    return ms !== undefined && ms >= 100 ? ms : undefined;
  }),
});

type Env = z.output<typeof envSchema>;

/** Every variable the bot reads (documented one by one in `.env.example`). */
export const ENV_VARIABLES = Object.keys(envSchema.shape);

/** Settings that only make sense together; each refusal names the variable to fix. */
function checkCombinations(env: Env, ctx: z.RefinementCtx): void {
  const need = (variable: keyof Env, message: string) =>
    ctx.addIssue({ code: "custom", path: [variable], message });
  if (env.SERVICE_BASE_URL) {
    if (!env.SERVICE_API_KEY) need("SERVICE_API_KEY", "required when SERVICE_BASE_URL is set");
    if (!env.SERVICE_REAL_IP) need("SERVICE_REAL_IP", "required when SERVICE_BASE_URL is set");
  } else {
    // A real key without a base URL would silently drive the sandbox and show made-up balances.
    for (const variable of ["SERVICE_API_KEY", "SERVICE_REAL_IP"] as const) {
      if (env[variable]) need(variable, "only used with SERVICE_BASE_URL: set it too, or unset this one");
    }
  }
  if (env.SLACK_BOT_TOKEN && !env.SLACK_SIGNING_SECRET) {
    need("SLACK_SIGNING_SECRET", "required when SLACK_BOT_TOKEN is set");
  }
  if (env.SLACK_SIGNING_SECRET && !env.SLACK_BOT_TOKEN) {
    need("SLACK_BOT_TOKEN", "required when SLACK_SIGNING_SECRET is set");
  }
  if (env.SLACK_APP_TOKEN && !env.SLACK_BOT_TOKEN) {
    need("SLACK_APP_TOKEN", "needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET");
  }
  if (env.TELEGRAM_WEBHOOK_SECRET && !env.TELEGRAM_BOT_TOKEN) {
    need("TELEGRAM_WEBHOOK_SECRET", "needs TELEGRAM_BOT_TOKEN");
  }
  if (env.OPS_AGENT_CHANNEL?.platform === "slack" && !env.SLACK_BOT_TOKEN) {
    need("OPS_AGENT_CHANNEL", "a slack: channel needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET");
  }
  if (env.OPS_AGENT_CHANNEL?.platform === "telegram" && !env.TELEGRAM_BOT_TOKEN) {
    need("OPS_AGENT_CHANNEL", "a telegram: chat needs TELEGRAM_BOT_TOKEN");
  }
  checkRedisCombination(env, need);
}

/** One way to reach Redis: a URL, Sentinel (with its master's name) or Cluster. */
function checkRedisCombination(env: Env, need: (variable: keyof Env, message: string) => void): void {
  const ways = (["REDIS_URL", "REDIS_SENTINELS", "REDIS_CLUSTER_NODES"] as const).filter((v) => env[v]);
  for (const variable of ways.slice(1)) {
    need(variable, `set only one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES (${ways[0]} is set too)`);
  }
  if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_MASTER) {
    need("REDIS_SENTINEL_MASTER", "required when REDIS_SENTINELS is set");
  }
  if (env.REDIS_SENTINEL_MASTER && !env.REDIS_SENTINELS) {
    need("REDIS_SENTINEL_MASTER", "only used with REDIS_SENTINELS: set it too, or unset this one");
  }
  if (env.REDIS_PASSWORD && !env.REDIS_SENTINELS && !env.REDIS_CLUSTER_NODES) {
    need(
      "REDIS_PASSWORD",
      "only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (REDIS_URL carries its own)",
    );
  }
}

function redisTarget(env: Env): RedisTarget | undefined {
  const password = env.REDIS_PASSWORD === undefined ? {} : { password: env.REDIS_PASSWORD };
  if (env.REDIS_URL) return { kind: "server", url: env.REDIS_URL };
  if (env.REDIS_SENTINELS && env.REDIS_SENTINEL_MASTER) {
    return {
      kind: "sentinel",
      sentinels: env.REDIS_SENTINELS,
      masterName: env.REDIS_SENTINEL_MASTER,
      ...password,
    };
  }
  if (env.REDIS_CLUSTER_NODES) return { kind: "cluster", nodes: env.REDIS_CLUSTER_NODES, ...password };
  return undefined;
}

function toConfig(env: Env): Config {
  const service: ServiceConfig =
    env.SERVICE_BASE_URL && env.SERVICE_API_KEY && env.SERVICE_REAL_IP
      ? {
          mode: "remote",
          baseUrl: env.SERVICE_BASE_URL,
          apiKey: env.SERVICE_API_KEY,
          realIp: env.SERVICE_REAL_IP,
        }
      : { mode: "sandbox" };
  return {
    port: env.PORT ?? DEFAULT_PORT,
    publicUrl: env.PUBLIC_URL,
    service,
    redisUrl: env.REDIS_URL,
    redis: redisTarget(env),
    slack:
      env.SLACK_BOT_TOKEN && env.SLACK_SIGNING_SECRET
        ? {
            botToken: env.SLACK_BOT_TOKEN,
            signingSecret: env.SLACK_SIGNING_SECRET,
            appToken: env.SLACK_APP_TOKEN,
            apiUrl: env.SLACK_API_URL,
            teamId: env.SLACK_TEAM_ID,
          }
        : undefined,
    telegram: env.TELEGRAM_BOT_TOKEN
      ? {
          botToken: env.TELEGRAM_BOT_TOKEN,
          apiRoot: env.TELEGRAM_API_ROOT,
          webhookSecret: env.TELEGRAM_WEBHOOK_SECRET,
          allowedChats: env.TELEGRAM_ALLOWED_CHATS ?? [],
        }
      : undefined,
    roles: { admins: env.OPS_ADMINS ?? [], operators: env.OPS_OPERATORS ?? [] },
    alerts: { slackChannel: env.ALERT_SLACK_CHANNEL, telegramChat: env.ALERT_TELEGRAM_CHAT },
    escalation: { escalateMin: env.OPS_ESCALATE_MIN, oncall: env.OPS_ONCALL ?? [] },
    cases: {
      levels: env.OPS_CASE_LEVELS ?? ["high", "severe"],
      slaMin: env.OPS_CASE_SLA_MIN ?? 60,
      ...(env.OPS_CERT_KEY !== undefined && { certKey: env.OPS_CERT_KEY }),
    },
    webhookSecrets: {
      orders: [...new Set(env.ORDER_WEBHOOK_SECRETS ?? [])],
      reports: [...new Set(env.REPORT_WEBHOOK_SECRETS ?? [])],
    },
    hostCallbackToken: env.HOST_CALLBACK_TOKEN,
    limits: { maxOrderTrx: env.OPS_MAX_ORDER_TRX, dailyLimitTrx: env.OPS_DAILY_LIMIT_TRX },
    money: {
      approvalTrx: env.OPS_APPROVAL_TRX,
      approvalTtlMin: env.OPS_APPROVAL_TTL_MIN ?? DEFAULT_APPROVAL_TTL_MIN,
      lowBalanceTrx: env.OPS_LOW_BALANCE_TRX,
      runwayAlertHours: env.OPS_RUNWAY_ALERT_HOURS,
      runwayIntervalMin: env.OPS_RUNWAY_INTERVAL_MIN ?? DEFAULT_RUNWAY_INTERVAL_MIN,
      digestAtMin: env.OPS_DIGEST_AT,
      scheduleGraceMin: env.OPS_SCHEDULE_GRACE_MIN ?? DEFAULT_SCHEDULE_GRACE_MIN,
    },
    logLevel: env.LOG_LEVEL ?? "info",
    watch: {
      intervalMs: (env.OPS_WATCH_INTERVAL_S ?? 60) * 1000,
      autoWatch: env.OPS_AUTO_WATCH ?? true,
      hostAutostop: env.OPS_HOST_AUTOSTOP ?? false,
      ...(env.OPS_WATCH_BUDGET_TRX && { budgetTrx: env.OPS_WATCH_BUDGET_TRX }),
      scoreDelta: env.OPS_WATCH_SCORE_DELTA ?? 1,
    },
    ...((env.OPSBOT_TEST_KILL_AT || env.OPSBOT_TEST_INTENT_RECOVER_MS) && {
      testing: { killAt: env.OPSBOT_TEST_KILL_AT, intentRecoverMs: env.OPSBOT_TEST_INTENT_RECOVER_MS },
    }),
    logLevelSet: env.LOG_LEVEL !== undefined,
    agents: {
      tokens: env.OPS_AGENT_TOKENS ?? [],
      ...(env.OPS_AGENT_CHANNEL && { channel: env.OPS_AGENT_CHANNEL }),
    },
  };
}

/** Values are trimmed; empty ones count as unset, as an `.env` line `FOO=` means. */
function blanksUnset(env: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    const text = typeof value === "string" ? value.trim() : undefined;
    if (text) out[name] = text;
  }
  return out;
}

const configSchema = z.preprocess(blanksUnset, envSchema.superRefine(checkCombinations).transform(toConfig));

export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? "environment"),
      rule: issue.code === "custom" ? issue.message : "is invalid",
    })),
  );
}

/**
 * Every secret value of a config, for `createLogger({ secrets })`: a last line of defence that
 * scrubs them from any log line, whatever field or message they slipped into.
 */
export function secretValues(config: Config): string[] {
  const redisPassword = config.redisUrl ? new URL(config.redisUrl).password : "";
  const values = [
    config.service.mode === "remote" ? config.service.apiKey : undefined,
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.telegram?.botToken,
    config.telegram?.webhookSecret,
    config.hostCallbackToken,
    ...config.webhookSecrets.orders,
    ...config.webhookSecrets.reports,
    redisPassword,
    safeDecode(redisPassword),
    ...config.agents.tokens.map((agent) => agent.token),
    config.redis?.kind === "server" ? undefined : config.redis?.password,
  ];
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** For `main`: a bad environment prints one line (no stack) and exits 1. */
export function readConfigOrExit(
  env: Record<string, string | undefined> = process.env,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  exit: (code: number) => never = (code) => process.exit(code),
): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    write(error.message);
    return exit(1);
  }
}
