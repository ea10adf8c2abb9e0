import type { LevelWithSilent } from "pino";
import type { z } from "zod";
import { coreSettingsOf, type EnvCoreSettings } from "./core-settings.js";
import type { AgentToken } from "./value-rules.js";
import { type Env, envSchema } from "./variables.js";

export { ENV_DEFAULTS, ENV_VARIABLES } from "./variables.js";

/**
 * The environment of CONTRACT.md, each variable declared once in `src/config/variables.ts`. This
 * is the only module that reads `process.env`; everything else receives a `Config`, whose `core`
 * part the core receives as it is. A bad value becomes one line naming the variable and the rule,
 * and never the value itself: half of these variables are secrets.
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

export interface TeamsConfig {
  appId: string;
  /** A secret: never logged. */
  appPassword: string;
  tenantId: string;
  /** OpenID metadata of the channel's tokens (TEAMS_OPENID_URL). */
  openIdUrl: string;
  /** The authority of the bot's own token, without a trailing slash (TEAMS_LOGIN_URL). */
  loginUrl: string;
  /** The origins a `serviceUrl` may have (TEAMS_SERVICE_URLS), host lowercased. */
  serviceOrigins: string[];
  /** PUBLIC_URL: file links are `<publicUrl>/files/<token>`. */
  publicUrl: string;
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
  teams?: TeamsConfig;
  /** The alert destination: ALERT_SLACK_CHANNEL, ALERT_TELEGRAM_CHAT, ALERT_TEAMS_CONVERSATION. */
  alerts: { slackChannel?: string; telegramChat?: number; teamsConversation?: string };
  /** OPS_CERT_KEY (a secret: never logged); unset: derived from SERVICE_API_KEY by the wiring. */
  certKey?: string;
  webhookSecrets: { orders: string[]; reports: string[] };
  /** Unset: generated once and kept in the store. */
  hostCallbackToken?: string;
  logLevel: LevelWithSilent;
  /** LOG_LEVEL was given: the console demo then logs to stderr at that level instead of a file. */
  logLevelSet: boolean;
  /** Test-only knobs of the fault-injection suite (never documented for operators). */
  testing?: TestingConfig;
  /** OPS_AGENT_TOKENS (empty: `/mcp` answers 404) and OPS_AGENT_CHANNEL (unset: the alert destination). */
  agents: { tokens: AgentToken[]; channel?: { platform: "slack" | "telegram" | "teams"; id: string } };
  /** What the core reads of the environment, in its units: handed to it as is (src/config/core-settings.ts). */
  core: EnvCoreSettings;
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
  checkTeamsCombination(env, need);
  if (env.OPS_AGENT_CHANNEL?.platform === "teams" && !env.TEAMS_APP_ID) {
    need(
      "OPS_AGENT_CHANNEL",
      "a teams: conversation needs TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID",
    );
  }
  if (env.OPS_AGENT_CHANNEL?.platform === "slack" && !env.SLACK_BOT_TOKEN) {
    need("OPS_AGENT_CHANNEL", "a slack: channel needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET");
  }
  if (env.OPS_AGENT_CHANNEL?.platform === "telegram" && !env.TELEGRAM_BOT_TOKEN) {
    need("OPS_AGENT_CHANNEL", "a telegram: chat needs TELEGRAM_BOT_TOKEN");
  }
  checkTelegramChatsServed(env, need);
  checkRedisCombination(env, need);
}

/**
 * The bot answers only TELEGRAM_ALLOWED_CHATS: a chat it posts alerts, cases or agents' requests
 * into must be one of them, or every button there would be refused ("This chat is not served").
 */
function checkTelegramChatsServed(env: Env, need: (variable: keyof Env, message: string) => void): void {
  if (!env.TELEGRAM_BOT_TOKEN) return;
  const allowed = new Set(env.TELEGRAM_ALLOWED_CHATS.map(String));
  const refused = (chat: string) =>
    `chat ${chat} is not in TELEGRAM_ALLOWED_CHATS, so the bot would refuse every button of what it posts there: add it to TELEGRAM_ALLOWED_CHATS`;
  if (env.ALERT_TELEGRAM_CHAT !== undefined && !allowed.has(String(env.ALERT_TELEGRAM_CHAT)))
    need("ALERT_TELEGRAM_CHAT", refused(String(env.ALERT_TELEGRAM_CHAT)));
  if (env.OPS_AGENT_CHANNEL?.platform === "telegram" && !allowed.has(env.OPS_AGENT_CHANNEL.id))
    need("OPS_AGENT_CHANNEL", refused(env.OPS_AGENT_CHANNEL.id));
}

/** Teams needs its three together, and PUBLIC_URL for its file links. */
function checkTeamsCombination(env: Env, need: (variable: keyof Env, message: string) => void): void {
  const three = ["TEAMS_APP_ID", "TEAMS_APP_PASSWORD", "TEAMS_TENANT_ID"] as const;
  const set = three.filter((v) => env[v]);
  if (set.length === 0) {
    if (env.TEAMS_LOGIN_URL)
      need("TEAMS_LOGIN_URL", "only used with TEAMS_APP_ID: set it too, or unset this one");
    return;
  }
  for (const variable of three.filter((v) => !env[v])) {
    need(variable, `required when ${set.join(" and ")} ${set.length === 1 ? "is" : "are"} set`);
  }
  if (!env.PUBLIC_URL)
    need("PUBLIC_URL", "required when Teams is on (file links are <PUBLIC_URL>/files/<token>)");
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

/** `given`: the variables as set (before defaults), for what depends on whether one was set at all. */
function toConfig(env: Env, given: Readonly<Record<string, string>>): Config {
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
    port: env.PORT,
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
          allowedChats: env.TELEGRAM_ALLOWED_CHATS,
        }
      : undefined,
    teams:
      env.TEAMS_APP_ID && env.TEAMS_APP_PASSWORD && env.TEAMS_TENANT_ID && env.PUBLIC_URL
        ? {
            appId: env.TEAMS_APP_ID,
            appPassword: env.TEAMS_APP_PASSWORD,
            tenantId: env.TEAMS_TENANT_ID,
            openIdUrl: env.TEAMS_OPENID_URL,
            loginUrl: env.TEAMS_LOGIN_URL ?? `https://login.microsoftonline.com/${env.TEAMS_TENANT_ID}`,
            serviceOrigins: env.TEAMS_SERVICE_URLS,
            publicUrl: env.PUBLIC_URL,
          }
        : undefined,
    alerts: {
      slackChannel: env.ALERT_SLACK_CHANNEL,
      telegramChat: env.ALERT_TELEGRAM_CHAT,
      teamsConversation: env.ALERT_TEAMS_CONVERSATION,
    },
    ...(env.OPS_CERT_KEY !== undefined && { certKey: env.OPS_CERT_KEY }),
    webhookSecrets: {
      orders: [...new Set(env.ORDER_WEBHOOK_SECRETS)],
      reports: [...new Set(env.REPORT_WEBHOOK_SECRETS)],
    },
    hostCallbackToken: env.HOST_CALLBACK_TOKEN,
    logLevel: env.LOG_LEVEL,
    ...((env.OPSBOT_TEST_KILL_AT || env.OPSBOT_TEST_INTENT_RECOVER_MS) && {
      testing: { killAt: env.OPSBOT_TEST_KILL_AT, intentRecoverMs: env.OPSBOT_TEST_INTENT_RECOVER_MS },
    }),
    logLevelSet: given.LOG_LEVEL !== undefined,
    agents: {
      tokens: env.OPS_AGENT_TOKENS,
      ...(env.OPS_AGENT_CHANNEL && { channel: env.OPS_AGENT_CHANNEL }),
    },
    core: coreSettingsOf(env),
  };
}

/** Values are trimmed; empty ones count as unset, as an `.env` line `FOO=` means. */
function blanksUnset(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const text = typeof value === "string" ? value.trim() : undefined;
    if (text) out[name] = text;
  }
  return out;
}

const checkedEnv = envSchema.superRefine(checkCombinations);

export function loadConfig(env: Record<string, string | undefined>): Config {
  const given = blanksUnset(env);
  const result = checkedEnv.safeParse(given);
  if (result.success) return toConfig(result.data, given);
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
    config.teams?.appPassword,
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
