import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  ENV_DEFAULTS,
  ENV_VARIABLES,
  loadConfig,
  readConfigOrExit,
  secretValues,
} from "../../src/config/load-config.js";

const REMOTE = {
  SERVICE_BASE_URL: "https://api.example.com",
  SERVICE_API_KEY: "key-123",
  SERVICE_REAL_IP: "203.0.113.7",
};
const SLACK = { SLACK_BOT_TOKEN: "xoxb-1-2-abc", SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5" };
const TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

/** The message of the ConfigError that `env` raises (fails the test when none is raised). */
function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(Object.keys(env))}`);
}

describe("loadConfig", () => {
  it("starts the demo from an empty environment", () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      publicUrl: undefined,
      service: { mode: "sandbox" },
      redisUrl: undefined,
      slack: undefined,
      telegram: undefined,
      alerts: { slackChannel: undefined, telegramChat: undefined },
      webhookSecrets: { orders: [], reports: [] },
      hostCallbackToken: undefined,
      logLevel: "info",
      logLevelSet: false,
      agents: { tokens: [] },
      core: {
        admins: [],
        operators: [],
        maxOrderTrx: undefined,
        dailyLimitTrx: undefined,
        approvalTrx: undefined,
        approvalTtlMs: 15 * 60_000,
        scheduleGraceMs: 10 * 60_000,
        digestAtMin: undefined,
        runway: { lowBalanceTrx: undefined, alertHours: undefined, intervalMs: 15 * 60_000 },
        watch: { intervalMs: 60_000, autoWatch: true, hostAutostop: false, scoreDelta: 1 },
        alerts: { escalateMs: undefined, oncall: [] },
        cases: { levels: ["high", "severe"], slaMs: 60 * 60_000 },
        agentDailyTrx: {},
        ledger: { retentionDays: 400 },
      },
    });
  });

  it("treats empty and blank values as unset, and ignores variables it does not know", () => {
    const config = loadConfig({ PORT: "", REDIS_URL: "  ", SLACK_BOT_TOKEN: "", HOME: "/root" });
    expect(config.port).toBe(3000);
    expect(config.redisUrl).toBeUndefined();
    expect(config.slack).toBeUndefined();
  });

  describe("PORT", () => {
    it("accepts 1 to 65535", () => {
      expect(loadConfig({ PORT: "8080" }).port).toBe(8080);
      expect(loadConfig({ PORT: " 1 " }).port).toBe(1);
      expect(loadConfig({ PORT: "65535" }).port).toBe(65535);
    });
    it.each(["0", "65536", "80.5", "-1", "http", "1e3"])("refuses %s with one line", (value) => {
      expect(refusal({ PORT: value })).toBe("PORT: must be a whole number from 1 to 65535");
    });
  });

  it("normalises PUBLIC_URL without its trailing slash and refuses other schemes", () => {
    expect(loadConfig({ PUBLIC_URL: "https://bot.example.com/" }).publicUrl).toBe("https://bot.example.com");
    expect(loadConfig({ PUBLIC_URL: "http://127.0.0.1:3000/ops//" }).publicUrl).toBe(
      "http://127.0.0.1:3000/ops",
    );
    for (const bad of [
      "ftp://x.example",
      "bot.example.com",
      "https://x.example/?a=1",
      "https://u:p@x.example",
    ]) {
      expect(refusal({ PUBLIC_URL: bad })).toMatch(/^PUBLIC_URL: must be an http\(s\) URL/);
    }
  });

  describe("service", () => {
    it("uses the sandbox without SERVICE_BASE_URL and the remote service with it", () => {
      expect(loadConfig({}).service).toEqual({ mode: "sandbox" });
      expect(loadConfig({ ...REMOTE, SERVICE_BASE_URL: "https://api.example.com/" }).service).toEqual({
        mode: "remote",
        baseUrl: "https://api.example.com",
        apiKey: "key-123",
        realIp: "203.0.113.7",
      });
      expect(loadConfig({ ...REMOTE, SERVICE_REAL_IP: "2001:db8::1" }).service).toMatchObject({
        realIp: "2001:db8::1",
      });
    });

    it("requires the key and the IP with a base URL", () => {
      expect(refusal({ SERVICE_BASE_URL: REMOTE.SERVICE_BASE_URL, SERVICE_REAL_IP: "203.0.113.7" })).toBe(
        "SERVICE_API_KEY: required when SERVICE_BASE_URL is set",
      );
      expect(refusal({ SERVICE_BASE_URL: REMOTE.SERVICE_BASE_URL, SERVICE_API_KEY: "k" })).toBe(
        "SERVICE_REAL_IP: required when SERVICE_BASE_URL is set",
      );
    });

    it("refuses a key without a base URL rather than drive the sandbox with it", () => {
      expect(refusal({ SERVICE_API_KEY: "key-123" })).toBe(
        "SERVICE_API_KEY: only used with SERVICE_BASE_URL: set it too, or unset this one",
      );
    });

    it("refuses a base URL that already contains /apiv2, and an IP that is not one", () => {
      expect(refusal({ ...REMOTE, SERVICE_BASE_URL: "https://api.example.com/apiv2/" })).toMatch(
        /^SERVICE_BASE_URL: must be an http\(s\) URL without query and without \/apiv2/,
      );
      expect(refusal({ ...REMOTE, SERVICE_REAL_IP: "203.0.113.300" })).toBe(
        "SERVICE_REAL_IP: must be an IPv4 or IPv6 address",
      );
    });
  });

  it("accepts redis:// and rediss:// only", () => {
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379/0" }).redisUrl).toBe("redis://127.0.0.1:6379/0");
    expect(loadConfig({ REDIS_URL: "rediss://:pw@cache.internal:6380" }).redisUrl).toBe(
      "rediss://:pw@cache.internal:6380",
    );
    expect(refusal({ REDIS_URL: "http://127.0.0.1:6379" })).toBe(
      "REDIS_URL: must be a redis:// or rediss:// URL",
    );
    expect(refusal({ REDIS_URL: "127.0.0.1:6379" })).toBe("REDIS_URL: must be a redis:// or rediss:// URL");
  });

  describe("Slack", () => {
    it("turns on with the bot token and the signing secret together", () => {
      expect(loadConfig(SLACK).slack).toEqual({
        botToken: SLACK.SLACK_BOT_TOKEN,
        signingSecret: SLACK.SLACK_SIGNING_SECRET,
        appToken: undefined,
        apiUrl: undefined,
        teamId: undefined,
      });
    });

    it("refuses one without the other", () => {
      expect(refusal({ SLACK_BOT_TOKEN: SLACK.SLACK_BOT_TOKEN })).toBe(
        "SLACK_SIGNING_SECRET: required when SLACK_BOT_TOKEN is set",
      );
      expect(refusal({ SLACK_SIGNING_SECRET: SLACK.SLACK_SIGNING_SECRET })).toBe(
        "SLACK_BOT_TOKEN: required when SLACK_SIGNING_SECRET is set",
      );
    });

    it("takes the app token, API URL (with a trailing slash) and team id", () => {
      const slack = loadConfig({
        ...SLACK,
        SLACK_APP_TOKEN: "xapp-1-A1-abc",
        SLACK_API_URL: "http://127.0.0.1:9000/api",
        SLACK_TEAM_ID: "T0123ABCD",
      }).slack;
      expect(slack).toMatchObject({
        appToken: "xapp-1-A1-abc",
        apiUrl: "http://127.0.0.1:9000/api/",
        teamId: "T0123ABCD",
      });
      expect(loadConfig({ ...SLACK, SLACK_API_URL: "https://slack.com/api/" }).slack?.apiUrl).toBe(
        "https://slack.com/api/",
      );
    });

    it("refuses the app token without the bot token, and tokens of the wrong kind", () => {
      expect(refusal({ SLACK_APP_TOKEN: "xapp-1-A1-abc" })).toBe(
        "SLACK_APP_TOKEN: needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET",
      );
      expect(refusal({ ...SLACK, SLACK_BOT_TOKEN: "xoxp-user-token" })).toBe(
        "SLACK_BOT_TOKEN: must be a Slack bot token starting with xoxb-",
      );
      expect(refusal({ ...SLACK, SLACK_APP_TOKEN: "xoxb-swapped" })).toBe(
        "SLACK_APP_TOKEN: must be a Slack app-level token starting with xapp-",
      );
      expect(refusal({ ...SLACK, SLACK_TEAM_ID: "acme" })).toBe(
        "SLACK_TEAM_ID: must be a Slack workspace id such as T0123ABCD",
      );
      expect(refusal({ ...SLACK, SLACK_API_URL: "slack.com/api" })).toBe(
        "SLACK_API_URL: must be an http(s) URL such as https://slack.com/api/",
      );
    });
  });

  describe("Telegram", () => {
    it("turns on with a bot token and reads its options", () => {
      const telegram = loadConfig({
        TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
        TELEGRAM_API_ROOT: "http://127.0.0.1:9001/",
        TELEGRAM_WEBHOOK_SECRET: "s3cr3t_Token-x",
        TELEGRAM_ALLOWED_CHATS: "-1001234567890, 42,",
      }).telegram;
      expect(telegram).toEqual({
        botToken: TELEGRAM_TOKEN,
        apiRoot: "http://127.0.0.1:9001",
        webhookSecret: "s3cr3t_Token-x",
        allowedChats: [-1001234567890, 42],
      });
      expect(loadConfig({ TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN }).telegram?.allowedChats).toEqual([]);
    });

    it("refuses a token without the <digits>:<token> form", () => {
      expect(refusal({ TELEGRAM_BOT_TOKEN: "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" })).toBe(
        "TELEGRAM_BOT_TOKEN: must be a bot token of the form <digits>:<token> as given by @BotFather",
      );
    });

    it("holds the webhook secret to Telegram's alphabet and length", () => {
      const withToken = { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN };
      const rule = "TELEGRAM_WEBHOOK_SECRET: must be 1 to 256 characters of A-Z a-z 0-9 _ -";
      expect(
        loadConfig({ ...withToken, TELEGRAM_WEBHOOK_SECRET: "a".repeat(256) }).telegram?.webhookSecret,
      ).toHaveLength(256);
      expect(refusal({ ...withToken, TELEGRAM_WEBHOOK_SECRET: "a".repeat(257) })).toBe(rule);
      expect(refusal({ ...withToken, TELEGRAM_WEBHOOK_SECRET: "has space" })).toBe(rule);
      expect(refusal({ ...withToken, TELEGRAM_WEBHOOK_SECRET: "dot.not.allowed" })).toBe(rule);
      expect(refusal({ TELEGRAM_WEBHOOK_SECRET: "fine" })).toBe(
        "TELEGRAM_WEBHOOK_SECRET: needs TELEGRAM_BOT_TOKEN",
      );
    });

    it("refuses chat ids that are not integers", () => {
      for (const bad of ["abc", "12,x", "1.5", "99999999999999999"]) {
        expect(refusal({ TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_ALLOWED_CHATS: bad })).toBe(
          "TELEGRAM_ALLOWED_CHATS: must be a comma list of chat ids (integers, negative for groups)",
        );
      }
    });
  });

  it("reads roles as slack:<id> / telegram:<id> lists", () => {
    const config = loadConfig({ OPS_ADMINS: "slack:U0123ABCD, telegram:42", OPS_OPERATORS: "slack:W99XYZ" });
    expect(config.core).toMatchObject({
      admins: ["slack:U0123ABCD", "telegram:42"],
      operators: ["slack:W99XYZ"],
    });
    for (const bad of ["U0123ABCD", "slack:bob", "telegram:-5", "discord:1"]) {
      expect(refusal({ OPS_OPERATORS: bad })).toBe(
        "OPS_OPERATORS: must be a comma list of slack:<user id>, telegram:<user id> or teams:<Entra object id>",
      );
    }
  });

  it("reads OPS_ESCALATE_MIN and OPS_ONCALL, and refuses what they do not accept", () => {
    expect(
      loadConfig({ OPS_ESCALATE_MIN: "15", OPS_ONCALL: "slack:U0ONCALL,slack:S0TEAM,telegram:@oncall_ops" })
        .core.alerts,
    ).toEqual({
      escalateMs: 15 * 60_000,
      oncall: ["slack:U0ONCALL", "slack:S0TEAM", "telegram:@oncall_ops"],
    });
    expect(refusal({ OPS_ESCALATE_MIN: "0" })).toBe(
      "OPS_ESCALATE_MIN: must be a whole number of minutes from 1 to 10080",
    );
    expect(refusal({ OPS_ESCALATE_MIN: "2.5" })).toMatch(/^OPS_ESCALATE_MIN: /);
    expect(refusal({ OPS_ONCALL: "telegram:1234" })).toBe(
      "OPS_ONCALL: must be a comma list of slack:<user id>, slack:<user group id> (S…), telegram:@<username> or teams:<Entra object id>",
    );
    expect(refusal({ OPS_ONCALL: "slack:#ops" })).toMatch(/^OPS_ONCALL: /);
  });

  it("reads OPS_AGENT_TOKENS and OPS_AGENT_CHANNEL, and refuses what they do not accept", () => {
    const token = "t".repeat(32);
    expect(
      loadConfig({
        ...SLACK,
        OPS_AGENT_TOKENS: `triage:read:${token},ops-1:request:${token}x`,
        OPS_AGENT_CHANNEL: "slack:C0AGENTS",
      }).agents,
    ).toEqual({
      tokens: [
        { name: "triage", scope: "read", token },
        { name: "ops-1", scope: "request", token: `${token}x` },
      ],
      channel: { platform: "slack", id: "C0AGENTS" },
    });
    expect(
      loadConfig({ ...SLACK, OPS_AGENT_TOKENS: `triage:read:${token},ops-1:request:${token}:12.5` }).core
        .agentDailyTrx,
    ).toEqual({ "ops-1": "12.5" });
    const rule =
      "OPS_AGENT_TOKENS: must be a comma list of <name>:<scope>:<token>[:<daily TRX>]: name of a-z 0-9 - (1 to 32), scope read or request, token at least 32 visible characters (no comma or colon), an optional positive daily TRX budget, each name once";
    for (const bad of [
      `triage:read:${"t".repeat(31)}`,
      `triage:read:${token}:0`,
      `triage:read:${token}:-1`,
      `triage:read:${token}:1.1234567`,
      `triage:read:${token}:5:6`,
      `Triage:read:${token}`,
      `triage:write:${token}`,
      `a:read:${token},a:request:${token}`,
    ]) {
      const message = refusal({ OPS_AGENT_TOKENS: bad });
      expect(message).toBe(rule);
      expect(message).not.toContain(token);
    }
    expect(refusal({ OPS_AGENT_CHANNEL: "C0AGENTS" })).toMatch(
      /^OPS_AGENT_CHANNEL: must be slack:<channel id>/,
    );
    expect(refusal({ OPS_AGENT_CHANNEL: "slack:C0AGENTS" })).toBe(
      "OPS_AGENT_CHANNEL: a slack: channel needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET",
    );
  });

  it("refuses to start when a Telegram chat it posts into is not one it serves (TELEGRAM_ALLOWED_CHATS)", () => {
    const served = { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_ALLOWED_CHATS: "42,-100987" };
    expect(loadConfig({ ...served, ALERT_TELEGRAM_CHAT: "-100987" }).alerts.telegramChat).toBe(-100987);
    expect(refusal({ ...served, ALERT_TELEGRAM_CHAT: "-100555" })).toBe(
      "ALERT_TELEGRAM_CHAT: chat -100555 is not in TELEGRAM_ALLOWED_CHATS, so the bot would refuse every button of what it posts there: add it to TELEGRAM_ALLOWED_CHATS",
    );
    expect(refusal({ ...served, OPS_AGENT_CHANNEL: "telegram:-100555" })).toMatch(
      /^OPS_AGENT_CHANNEL: chat -100555 is not in TELEGRAM_ALLOWED_CHATS/,
    );
  });

  it("reads the alert destinations", () => {
    expect(loadConfig({ ALERT_SLACK_CHANNEL: "C0123ABCD", ALERT_TELEGRAM_CHAT: "-100987" }).alerts).toEqual({
      slackChannel: "C0123ABCD",
      telegramChat: -100987,
    });
    expect(loadConfig({ ALERT_SLACK_CHANNEL: "#ops-alerts" }).alerts.slackChannel).toBe("#ops-alerts");
    expect(refusal({ ALERT_TELEGRAM_CHAT: "ops" })).toBe(
      "ALERT_TELEGRAM_CHAT: must be a chat id (an integer, negative for groups)",
    );
    expect(refusal({ ALERT_SLACK_CHANNEL: "ops alerts" })).toMatch(
      /^ALERT_SLACK_CHANNEL: must be a Slack channel/,
    );
  });

  it("reads webhook secrets that start with whsec_, without duplicates", () => {
    const config = loadConfig({
      ORDER_WEBHOOK_SECRETS: "whsec_primary,whsec_backup,whsec_primary",
      REPORT_WEBHOOK_SECRETS: "whsec_r1",
    });
    expect(config.webhookSecrets).toEqual({
      orders: ["whsec_primary", "whsec_backup"],
      reports: ["whsec_r1"],
    });
    expect(refusal({ REPORT_WEBHOOK_SECRETS: "whsec_ok,plain" })).toBe(
      "REPORT_WEBHOOK_SECRETS: must be a comma list of secrets that each start with whsec_",
    );
    expect(refusal({ ORDER_WEBHOOK_SECRETS: "whsec_" })).toMatch(/^ORDER_WEBHOOK_SECRETS: /);
  });

  it("holds HOST_CALLBACK_TOKEN to 16+ URL-safe characters", () => {
    expect(loadConfig({ HOST_CALLBACK_TOKEN: "abcdefghij_-1234" }).hostCallbackToken).toBe(
      "abcdefghij_-1234",
    );
    const rule = "HOST_CALLBACK_TOKEN: must be 16 to 256 characters of A-Z a-z 0-9 _ -";
    expect(refusal({ HOST_CALLBACK_TOKEN: "short_token_15ch".slice(0, 15) })).toBe(rule);
    expect(refusal({ HOST_CALLBACK_TOKEN: "has/slash/in/it/long" })).toBe(rule);
  });

  it("keeps TRX limits as decimal strings and refuses what is not a positive amount", () => {
    expect(loadConfig({ OPS_MAX_ORDER_TRX: "500", OPS_DAILY_LIMIT_TRX: "0.000001" }).core).toMatchObject({
      maxOrderTrx: "500",
      dailyLimitTrx: "0.000001",
    });
    for (const bad of ["0", "0.0", "-5", "1e3", "12.3456789", "1,5", ".5", "abc"]) {
      expect(refusal({ OPS_MAX_ORDER_TRX: bad })).toBe(
        "OPS_MAX_ORDER_TRX: must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5",
      );
    }
  });

  describe("money controls", () => {
    it("reads the approval, runway and digest settings", () => {
      const money = loadConfig({
        OPS_APPROVAL_TRX: "250",
        OPS_APPROVAL_TTL_MIN: "30",
        OPS_LOW_BALANCE_TRX: "100.5",
        OPS_RUNWAY_ALERT_HOURS: "1.5",
        OPS_RUNWAY_INTERVAL_MIN: "5",
        OPS_DIGEST_AT: "08:30",
      }).core;
      expect(money).toMatchObject({
        approvalTrx: "250",
        approvalTtlMs: 30 * 60_000,
        runway: { lowBalanceTrx: "100.5", alertHours: 1.5, intervalMs: 5 * 60_000 },
        digestAtMin: 8 * 60 + 30,
        scheduleGraceMs: 10 * 60_000,
      });
      expect(loadConfig({ OPS_DIGEST_AT: "00:00" }).core.digestAtMin).toBe(0);
      expect(loadConfig({ OPS_DIGEST_AT: "23:59" }).core.digestAtMin).toBe(23 * 60 + 59);
    });

    it("reads OPS_SCHEDULE_GRACE_MIN and refuses what it does not accept", () => {
      expect(loadConfig({ OPS_SCHEDULE_GRACE_MIN: "0" }).core.scheduleGraceMs).toBe(0);
      expect(loadConfig({ OPS_SCHEDULE_GRACE_MIN: "30" }).core.scheduleGraceMs).toBe(30 * 60_000);
      for (const bad of ["-1", "2.5", "1441", "ten"]) {
        expect(refusal({ OPS_SCHEDULE_GRACE_MIN: bad })).toBe(
          "OPS_SCHEDULE_GRACE_MIN: must be a whole number of minutes from 0 to 1440",
        );
      }
    });

    it.each([
      [
        "OPS_APPROVAL_TRX",
        "0",
        "must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5",
      ],
      [
        "OPS_LOW_BALANCE_TRX",
        "-1",
        "must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5",
      ],
      ["OPS_APPROVAL_TTL_MIN", "0", "must be a whole number of minutes from 1 to 1440"],
      ["OPS_APPROVAL_TTL_MIN", "1.5", "must be a whole number of minutes from 1 to 1440"],
      ["OPS_RUNWAY_INTERVAL_MIN", "1441", "must be a whole number of minutes from 1 to 1440"],
      [
        "OPS_RUNWAY_ALERT_HOURS",
        "0",
        "must be a number of hours above 0 and at most 8760, such as 12 or 1.5",
      ],
      [
        "OPS_RUNWAY_ALERT_HOURS",
        "12h",
        "must be a number of hours above 0 and at most 8760, such as 12 or 1.5",
      ],
      ["OPS_DIGEST_AT", "24:00", "must be a UTC time HH:MM from 00:00 to 23:59, such as 08:30"],
      ["OPS_DIGEST_AT", "8:30", "must be a UTC time HH:MM from 00:00 to 23:59, such as 08:30"],
      ["OPS_DIGEST_AT", "08:60", "must be a UTC time HH:MM from 00:00 to 23:59, such as 08:30"],
    ])("refuses %s=%s with one line naming the rule", (variable, value, rule) => {
      expect(refusal({ [variable]: value })).toBe(`${variable}: ${rule}`);
    });
  });

  it("reads the watchlist settings and refuses bad values with the variable and the rule", () => {
    expect(
      loadConfig({
        OPS_WATCH_INTERVAL_S: "5",
        OPS_AUTO_WATCH: "false",
        OPS_HOST_AUTOSTOP: "TRUE",
        OPS_WATCH_BUDGET_TRX: "50",
        OPS_WATCH_SCORE_DELTA: "0.5",
      }).core.watch,
    ).toEqual({ intervalMs: 5_000, autoWatch: false, hostAutostop: true, budgetTrx: "50", scoreDelta: 0.5 });
    for (const bad of ["4", "0", "-60", "1.5", "60s"]) {
      expect(refusal({ OPS_WATCH_INTERVAL_S: bad })).toBe(
        "OPS_WATCH_INTERVAL_S: must be a whole number of seconds, at least 5",
      );
    }
    for (const variable of ["OPS_AUTO_WATCH", "OPS_HOST_AUTOSTOP"]) {
      expect(refusal({ [variable]: "yes" })).toBe(`${variable}: must be true or false`);
    }
    expect(refusal({ OPS_WATCH_BUDGET_TRX: "0" })).toBe(
      "OPS_WATCH_BUDGET_TRX: must be a positive amount of TRX with at most 6 decimals, such as 500 or 12.5",
    );
    for (const bad of ["0", "-1", "abc", "1e2"]) {
      expect(refusal({ OPS_WATCH_SCORE_DELTA: bad })).toBe(
        "OPS_WATCH_SCORE_DELTA: must be a positive number such as 1 or 0.5",
      );
    }
  });

  it("reads LOG_LEVEL as one of pino's levels", () => {
    expect(loadConfig({ LOG_LEVEL: "DEBUG" }).logLevel).toBe("debug");
    expect(loadConfig({ LOG_LEVEL: "DEBUG" }).logLevelSet).toBe(true);
    expect(loadConfig({ LOG_LEVEL: "silent" }).logLevel).toBe("silent");
    expect(refusal({ LOG_LEVEL: "verbose" })).toBe(
      "LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent",
    );
  });

  it("names every bad variable on one line", () => {
    const message = refusal({ PORT: "x", REDIS_URL: "nope" });
    expect(message).toBe(
      "PORT: must be a whole number from 1 to 65535; REDIS_URL: must be a redis:// or rediss:// URL",
    );
    expect(message).not.toContain("\n");
  });
});

describe("secrets", () => {
  // Each value is malformed, and each carries a marker that must not reach the message.
  const secrets = {
    SERVICE_API_KEY: "bad key with spaces leak1",
    SLACK_BOT_TOKEN: "xoxp-leak2",
    SLACK_SIGNING_SECRET: "leak 3",
    TELEGRAM_BOT_TOKEN: "leak-4",
    TELEGRAM_WEBHOOK_SECRET: "leak.5",
    ORDER_WEBHOOK_SECRETS: "leak-6",
    HOST_CALLBACK_TOKEN: "leak7",
    REDIS_URL: "http://:leak-8@host",
  };

  it("never appear in a ConfigError message", () => {
    const message = refusal({
      SERVICE_BASE_URL: "https://api.example.com",
      SERVICE_REAL_IP: "1.2.3.4",
      ...secrets,
    });
    for (const name of Object.keys(secrets)) expect(message).toContain(`${name}:`);
    expect(message).not.toMatch(/leak/);
  });

  it("are all listed by secretValues for the logger", () => {
    const config = loadConfig({
      ...REMOTE,
      ...SLACK,
      SLACK_APP_TOKEN: "xapp-app",
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: "tg_secret",
      ORDER_WEBHOOK_SECRETS: "whsec_o",
      REPORT_WEBHOOK_SECRETS: "whsec_r",
      HOST_CALLBACK_TOKEN: "host_callback_token_1",
      REDIS_URL: "redis://user:p%40ss@cache:6379",
      OPS_AGENT_TOKENS: `bot:read:${"s".repeat(32)}`,
    });
    expect(secretValues(config).sort()).toEqual(
      [
        "key-123",
        SLACK.SLACK_BOT_TOKEN,
        SLACK.SLACK_SIGNING_SECRET,
        "xapp-app",
        TELEGRAM_TOKEN,
        "tg_secret",
        "whsec_o",
        "whsec_r",
        "host_callback_token_1",
        "p%40ss",
        "p@ss",
        "s".repeat(32),
      ].sort(),
    );
  });
});

describe("readConfigOrExit", () => {
  it("prints one line without a stack and exits 1", () => {
    const lines: string[] = [];
    const exit = (code: number): never => {
      throw new Error(`exit ${code}`);
    };
    expect(() =>
      readConfigOrExit({ PORT: "99999", SERVICE_API_KEY: "leak me" }, (l) => lines.push(l), exit),
    ).toThrow("exit 1");
    expect(lines).toEqual([
      "PORT: must be a whole number from 1 to 65535; SERVICE_API_KEY: must be visible ASCII characters without spaces",
    ]);
  });

  it("returns the config when the environment is valid", () => {
    const config = readConfigOrExit({ PORT: "4000" }, () => {
      throw new Error("must not write");
    });
    expect(config.port).toBe(4000);
  });
});

describe(".env.example", () => {
  const text = readFileSync(".env.example", "utf8");

  it("starts the demo when copied as is", () => {
    const env = Object.fromEntries(
      text
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
        .map((line) => [line.slice(0, line.indexOf("=")).trim(), line.slice(line.indexOf("=") + 1)]),
    );
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });

  it("documents every variable the config reads, each after a comment line", () => {
    const lines = text.split("\n");
    for (const variable of ENV_VARIABLES) {
      const at = lines.findIndex((line) => new RegExp(`^#? ?${variable}=`).test(line));
      expect(at, variable).toBeGreaterThan(0);
      expect(lines[at - 1], variable).toMatch(/^# (?![A-Z_]+=)/);
    }
  });

  it("states each declared default as declared (`default <text>`), and no other", () => {
    const lines = text.split("\n");
    const stated: Record<string, string> = {};
    for (const variable of ENV_VARIABLES) {
      let at = lines.findIndex((line) => new RegExp(`^#? ?${variable}=`).test(line));
      const comment: string[] = [];
      while (at > 0 && /^# (?![A-Z_]+=)/.test(lines[at - 1] ?? "")) comment.unshift(lines[--at] ?? "");
      const value = /\b[Dd]efault ([^\s;]+?)\.?$/m.exec(comment.join("\n"))?.[1];
      if (value !== undefined) stated[variable] = value;
    }
    expect(Object.keys(ENV_DEFAULTS).length).toBeGreaterThan(5);
    expect(stated).toEqual(ENV_DEFAULTS);
  });
});

describe("process.env", () => {
  it("is read by src/config/load-config.ts alone", () => {
    const readers = ["src", "adapters"]
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => {
        return (
          file !== join("src", "config", "load-config.ts") &&
          readFileSync(file, "utf8").includes("process.env")
        );
      });
    expect(readers).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}
