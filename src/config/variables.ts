import { isIP } from "node:net";
import { z } from "zod";
import { defaultsOf, listSetting, setting } from "./setting.js";
import {
  agentChannel,
  agentTokens,
  boolean,
  GUID,
  hostPort,
  httpsOrigin,
  httpsUrl,
  integer,
  list,
  matching,
  minutesAsMs,
  noTrailingSlash,
  port,
  positiveDecimal,
  positiveHours,
  principal,
  redisUrl,
  secondsAsMs,
  serviceBaseUrl,
  TEAMS_CONVERSATION,
  trailingSlash,
  trxAmount,
  trxAmountOrZero,
  utcClock,
  VISIBLE_ASCII,
  wholeAtLeast,
  wholeFrom,
} from "./value-rules.js";

/**
 * Every environment variable of CONTRACT.md, declared once: its name, its rule (the parser and
 * the one line a refusal shows), its default, and its unit (durations are converted to
 * milliseconds here, defaults included). `.env.example` documents each one, and each default
 * as `default <text>`; a test holds the three together.
 */

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const KILL_POINTS = ["after-claim", "after-answer", "before-reply", "after-reply"] as const;

// Rules shared by several variables.
const VISIBLE = "must be visible ASCII characters without spaces";
const TRX = "must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5";
const MINUTES_1_TO_1440 = "must be a whole number of minutes from 1 to 1440";
const MINUTES_1_TO_10080 = "must be a whole number of minutes from 1 to 10080";
const BOOLEAN = "must be true or false";
const visibleAscii = setting(VISIBLE, matching(VISIBLE_ASCII));
const trx = setting(TRX, trxAmount);
const principals = listSetting(
  "must be a comma list of slack:<user id>, telegram:<user id> or teams:<Entra object id>",
  list(principal),
);
const whsecList = listSetting(
  "must be a comma list of secrets that each start with whsec_",
  list(matching(/^whsec_[\x21-\x2b\x2d-\x7e]+$/)),
);

export const envSchema = z.object({
  PORT: setting("must be a whole number from 1 to 65535", port, { default: "3000" }),
  PUBLIC_URL: setting(
    "must be an http(s) URL such as https://bot.example.com, without query",
    noTrailingSlash,
  ),
  SERVICE_BASE_URL: setting(
    "must be an http(s) URL without query and without /apiv2 (each call adds it), such as https://api.example.com",
    serviceBaseUrl,
  ),
  SERVICE_API_KEY: visibleAscii,
  SERVICE_REAL_IP: setting("must be an IPv4 or IPv6 address", (raw) => (isIP(raw) ? raw : undefined)),
  REDIS_URL: setting("must be a redis:// or rediss:// URL", redisUrl),
  REDIS_SENTINELS: setting(
    "must be a comma list of host:port sentinels, such as 10.0.0.1:26379,10.0.0.2:26379",
    list(hostPort),
  ),
  REDIS_SENTINEL_MASTER: setting(
    "must be the master's name as the sentinels know it (letters, digits, . _ -)",
    matching(/^[A-Za-z0-9._-]{1,128}$/),
  ),
  REDIS_CLUSTER_NODES: setting(
    "must be a comma list of host:port cluster nodes, such as 10.0.0.1:6379,10.0.0.2:6379",
    list(hostPort),
  ),
  REDIS_PASSWORD: visibleAscii,
  SLACK_BOT_TOKEN: setting("must be a Slack bot token starting with xoxb-", matching(/^xoxb-[\x21-\x7e]+$/)),
  SLACK_SIGNING_SECRET: visibleAscii,
  SLACK_APP_TOKEN: setting(
    "must be a Slack app-level token starting with xapp-",
    matching(/^xapp-[\x21-\x7e]+$/),
  ),
  SLACK_API_URL: setting("must be an http(s) URL such as https://slack.com/api/", trailingSlash),
  SLACK_TEAM_ID: setting("must be a Slack workspace id such as T0123ABCD", matching(/^T[A-Z0-9]{2,}$/)),
  TELEGRAM_BOT_TOKEN: setting(
    "must be a bot token of the form <digits>:<token> as given by @BotFather",
    matching(/^\d+:[A-Za-z0-9_-]+$/),
  ),
  TELEGRAM_API_ROOT: setting("must be an http(s) URL such as https://api.telegram.org", noTrailingSlash),
  TELEGRAM_WEBHOOK_SECRET: setting(
    "must be 1 to 256 characters of A-Z a-z 0-9 _ -",
    matching(/^[A-Za-z0-9_-]{1,256}$/),
  ),
  TELEGRAM_ALLOWED_CHATS: listSetting(
    "must be a comma list of chat ids (integers, negative for groups)",
    list(integer),
  ),
  TEAMS_APP_ID: setting("must be the bot's Microsoft app (client) id, a GUID", matching(GUID)),
  TEAMS_APP_PASSWORD: visibleAscii,
  TEAMS_TENANT_ID: setting("must be the tenant's id, a GUID", matching(GUID)),
  TEAMS_OPENID_URL: setting("must be an https URL without query", httpsUrl, {
    default: "https://login.botframework.com/v1/.well-known/openidconfiguration",
  }),
  TEAMS_LOGIN_URL: setting(
    "must be an https URL without query, such as https://login.microsoftonline.com/<tenant id>",
    httpsUrl,
  ),
  TEAMS_SERVICE_URLS: setting(
    "must be a comma list of https origins (scheme, host, port; no path), such as https://smba.trafficmanager.net",
    list(httpsOrigin),
    { default: "https://smba.trafficmanager.net" },
  ),
  OPS_ADMINS: principals,
  OPS_OPERATORS: principals,
  ALERT_SLACK_CHANNEL: setting(
    "must be a Slack channel id such as C0123ABCD or a #channel-name",
    matching(/^([CGD][A-Z0-9]{2,}|#[a-z0-9][a-z0-9_-]{0,79})$/),
  ),
  ALERT_TELEGRAM_CHAT: setting("must be a chat id (an integer, negative for groups)", integer),
  ALERT_TEAMS_CONVERSATION: setting(
    "must be a Teams channel id such as 19:abc123@thread.tacv2",
    matching(TEAMS_CONVERSATION),
  ),
  ORDER_WEBHOOK_SECRETS: whsecList,
  REPORT_WEBHOOK_SECRETS: whsecList,
  HOST_CALLBACK_TOKEN: setting(
    "must be 16 to 256 characters of A-Z a-z 0-9 _ -",
    matching(/^[A-Za-z0-9_-]{16,256}$/),
  ),
  OPS_MAX_ORDER_TRX: trx,
  OPS_DAILY_LIMIT_TRX: trx,
  OPS_ACTIVATION_TRX: setting(
    "must be an amount of TRX, 0 or more, with at most 6 decimals, such as 1.1 (0: hold nothing for an activation)",
    trxAmountOrZero,
  ),
  OPS_APPROVAL_TRX: trx,
  OPS_APPROVAL_TTL_MIN: setting(MINUTES_1_TO_1440, minutesAsMs(wholeFrom(1, 1440)), { default: "15" }),
  OPS_LOW_BALANCE_TRX: trx,
  OPS_RUNWAY_ALERT_HOURS: setting(
    "must be a number of hours above 0 and at most 8760, such as 12 or 1.5",
    positiveHours,
  ),
  OPS_RUNWAY_INTERVAL_MIN: setting(MINUTES_1_TO_1440, minutesAsMs(wholeFrom(1, 1440)), { default: "15" }),
  OPS_DIGEST_AT: setting("must be a UTC time HH:MM from 00:00 to 23:59, such as 08:30", utcClock),
  OPS_SCHEDULE_GRACE_MIN: setting(
    "must be a whole number of minutes from 0 to 1440",
    minutesAsMs(wholeFrom(0, 1440)),
    { default: "10" },
  ),
  OPS_ESCALATE_MIN: setting(MINUTES_1_TO_10080, minutesAsMs(wholeFrom(1, 10_080))),
  OPS_ONCALL: listSetting(
    "must be a comma list of slack:<user id>, slack:<user group id> (S…), telegram:@<username> or teams:<Entra object id>",
    list(
      matching(
        new RegExp(
          `^(slack:[UWS][A-Z0-9]{2,}|telegram:@[A-Za-z0-9_]{5,32}|teams:${GUID.source.slice(1, -1)})$`,
        ),
      ),
    ),
  ),
  OPS_CASE_LEVELS: setting(
    "must be a comma list of risk levels such as high,severe (letters only)",
    list(matching(/^[a-z]{1,20}$/)),
    { default: "high,severe" },
  ),
  OPS_CASE_SLA_MIN: setting(MINUTES_1_TO_10080, minutesAsMs(wholeFrom(1, 10_080)), { default: "60" }),
  OPS_AUDIT_RETENTION_DAYS: setting("must be a whole number of days from 1 to 3650", wholeFrom(1, 3650), {
    default: "400",
  }),
  OPS_CERT_KEY: setting("must be at least 32 visible characters", matching(/^[\x21-\x7e]{32,512}$/)),
  OPS_WATCH_INTERVAL_S: setting(
    "must be a whole number of seconds, at least 5",
    secondsAsMs(wholeAtLeast(5)),
    {
      default: "60",
    },
  ),
  OPS_AUTO_WATCH: setting(BOOLEAN, boolean, { default: "true" }),
  OPS_HOST_AUTOSTOP: setting(BOOLEAN, boolean, { default: "false" }),
  OPS_WATCH_BUDGET_TRX: trx,
  OPS_WATCH_SCORE_DELTA: setting("must be a positive number such as 1 or 0.5", positiveDecimal, {
    default: "1.0",
  }),
  LOG_LEVEL: setting(
    `must be one of ${LOG_LEVELS.join(", ")}`,
    (raw) => LOG_LEVELS.find((level) => level === raw.toLowerCase()),
    { default: "info" },
  ),
  OPS_AGENT_TOKENS: listSetting(
    "must be a comma list of <name>:<scope>:<token>[:<daily TRX>]: name of a-z 0-9 - (1 to 32), scope read or request, token at least 32 visible characters (no comma or colon), an optional positive daily TRX budget, each name once",
    agentTokens,
  ),
  OPS_AGENT_CHANNEL: setting(
    "must be slack:<channel id> (such as slack:C0123ABCD), telegram:<chat id> (such as telegram:-1001234) or teams:<conversation id> (such as teams:19:abc123@thread.tacv2)",
    agentChannel,
  ),
  OPSBOT_TEST_KILL_AT: setting("must be after-claim, after-answer, before-reply or after-reply", (raw) =>
    KILL_POINTS.find((point) => point === raw),
  ),
  OPSBOT_TEST_INTENT_RECOVER_MS: setting(
    "must be a whole number of milliseconds from 100",
    wholeAtLeast(100),
  ),
});

/** The environment checked and converted: a default stands in for each unset variable that has one. */
export type Env = z.output<typeof envSchema>;

/** Every variable the bot reads (documented one by one in `.env.example`). */
export const ENV_VARIABLES = Object.keys(envSchema.shape);

/** The declared defaults, as written in the environment (and stated in `.env.example`). */
export const ENV_DEFAULTS: Readonly<Record<string, string>> = defaultsOf(envSchema.shape);
