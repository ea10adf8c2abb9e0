import { afterEach } from "vitest";
import { type App, startApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config/load-config.js";
import type { WebhookFamily } from "../../src/core/service-events/events.js";
import { createLogger } from "../../src/log.js";
import { DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";
import {
  buttonClick,
  SIGNING_SECRET,
  type Signed,
  type SlackUser,
  signedHeaders,
  slashCommand,
} from "../adapters/slack/payloads.js";
import { buttonData, callbackUpdate, messageUpdate } from "../adapters/telegram/updates.js";
import { createFakeSlackApi, type FakeSlackApi, type FakeSlackMessage } from "../fakes/slack-api.js";
import { createFakeTelegramApi, type FakeMessage, type FakeTelegramApi } from "../fakes/telegram-api.js";
import { postSigned } from "../webhooks/signed.js";
import { waitFor } from "./bot-kit.js";
import { LOOPBACK, reservePort } from "./processes.js";

/**
 * The whole bot as `npm start` runs it (`startApp` with a Config from `loadConfig`), around real
 * outside parts: a sandbox service on a free port (SERVICE_BASE_URL: one service for every bot
 * instance of the world), the fake Slack Web API and, when asked, the fake Telegram Bot API. Logs
 * are pino JSON lines collected per bot. Requests reach a bot as Slack, Telegram and the service
 * send them: signed, with the secret header, signed with a webhook secret.
 */
const PUBLIC_URL = "https://opsbot.test";
export const SERVICE_API_KEY = "svc_live_9Jq2ZxW8pLm4Rt6Vb1Nc";
export const ORDER_SECRET = "whsec_orderPrimary7Hk2Qm9Xw4Lp";
export const REPORT_SECRET = "whsec_reportPrimary3Tn8Vd5Ks1Jg";
export const HOST_CALLBACK_TOKEN = "hostcb_Zr4Wq8Lm2Xn6Pv0Ts";
export const TELEGRAM_SECRET = "tg-hook_Sx5Nw1Kq7Dm3";
export const ADMIN: SlackUser = { id: "U0ADMIN", name: "ada" };
export const OPERATOR: SlackUser = { id: "U0OPER", name: "olga" };
export const TG_OPERATOR = { id: 7001, is_bot: false, first_name: "Olga", username: "olga_ops" };
export const TG_CHAT = 7001;
export const SLACK_BOT_TOKEN = "xoxb-8812-world-bot-token";

export interface WorldOptions {
  telegram?: boolean;
  sandbox?: SandboxOptions;
  /** REDIS_URL and the key prefix every bot of the world shares. */
  redis?: { url: string; prefix: string };
  /** The key prefix when Redis comes through `env` instead (REDIS_SENTINELS, REDIS_CLUSTER_NODES). */
  redisPrefix?: string;
  env?: Record<string, string>;
}

export interface Bot {
  app: App;
  config: Config;
  origin: string;
  /** This bot's log lines (pino JSON, level debug unless LOG_LEVEL says otherwise). */
  logs: string[];
  /** A slash command typed in `channel` (default C0OPS) by `user` (default the operator). */
  command(line: string, o?: { user?: SlackUser; channel?: string }): Promise<Response>;
  /** A click on the button `label` of a Slack message. */
  click(
    message: FakeSlackMessage,
    label: string | RegExp,
    o?: { user?: SlackUser; actionTs?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  /** A Telegram text message from the operator in their private chat. */
  say(text: string): Promise<Response>;
  /** A click on an inline button of a Telegram message. */
  tap(message: FakeMessage, label: string | RegExp): Promise<Response>;
  /** A webhook signed with the configured secret of its family. */
  webhook(family: WebhookFamily, body: unknown): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

export interface World {
  sandbox: Sandbox;
  slack: FakeSlackApi;
  telegram?: FakeTelegramApi;
  /** A bot: the first one receives the sandbox's webhooks and callbacks (PUBLIC_URL maps to it). */
  start(env?: Record<string, string>): Promise<Bot>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

let tgUpdate = 500_000;

export async function createWorld(options: WorldOptions = {}): Promise<World> {
  // Held until the first bot listens on it: the sandbox must know it first, and a port merely found
  // free could be taken meanwhile by a parallel test (EADDRINUSE).
  const first = await reservePort();
  open.push(() => first.release());
  const sandbox = await createSandbox({
    apiKey: SERVICE_API_KEY,
    enforceRateLimits: false,
    ...options.sandbox,
    outbound: {
      originMap: { [PUBLIC_URL]: `http://${LOOPBACK}:${first.port}` },
      ...options.sandbox?.outbound,
    },
  });
  open.push(() => sandbox.close());
  const slack = await createFakeSlackApi({ token: SLACK_BOT_TOKEN });
  open.push(() => slack.close());
  const telegram = options.telegram ? await createFakeTelegramApi() : undefined;
  if (telegram) open.push(() => telegram.close());
  let started = 0;

  const baseEnv = (): Record<string, string> => ({
    SERVICE_BASE_URL: sandbox.url,
    SERVICE_API_KEY,
    SERVICE_REAL_IP: DEFAULT_REAL_IP,
    PUBLIC_URL,
    SLACK_BOT_TOKEN,
    // test/adapters/slack/payloads.ts signs every request with it.
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPS_ADMINS: `slack:${ADMIN.id}`,
    OPS_OPERATORS: `slack:${OPERATOR.id},telegram:${TG_OPERATOR.id}`,
    // This team holds nothing for an address's activation; unset, a capped quote to a new address is refused.
    OPS_ACTIVATION_TRX: "0",
    ORDER_WEBHOOK_SECRETS: ORDER_SECRET,
    REPORT_WEBHOOK_SECRETS: REPORT_SECRET,
    HOST_CALLBACK_TOKEN,
    LOG_LEVEL: "debug",
    ...(options.redis && { REDIS_URL: options.redis.url }),
    ...(telegram && {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
      TELEGRAM_ALLOWED_CHATS: String(TG_CHAT),
    }),
    ...options.env,
  });

  async function start(env: Record<string, string> = {}): Promise<Bot> {
    const port = started === 0 ? first.port : 0;
    started += 1;
    const config = { ...loadConfig({ ...baseEnv(), ...env }), port };
    const logs: string[] = [];
    const logger = createLogger({
      level: config.logLevel,
      destination: { write: (line: string) => void logs.push(line) },
    });
    if (port === first.port) await first.release();
    const app = await startApp({
      config,
      logger,
      host: LOOPBACK,
      ...(options.redis && { redisPrefix: options.redis.prefix }),
      ...(options.redisPrefix && { redisPrefix: options.redisPrefix }),
    });
    open.push(() => app.stop());
    const origin = `http://${LOOPBACK}:${app.port}`;
    return { app, config, origin, logs, ...requests(origin), stop: () => app.stop() };
  }

  function requests(origin: string) {
    const post = (body: Signed, headers: Record<string, string> = {}) =>
      fetch(`${origin}/slack/events`, {
        method: "POST",
        headers: { "content-type": body.contentType, ...signedHeaders(body.raw), ...headers },
        body: body.raw,
      });
    const update = (body: unknown) =>
      fetch(`${origin}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
        body: JSON.stringify(body),
      });
    return {
      command: (line: string, o: { user?: SlackUser; channel?: string } = {}) =>
        post(slashCommand(slack, line, { user: o.user ?? OPERATOR, channel: o.channel, team: slack.teamId })),
      click: (
        message: FakeSlackMessage,
        label: string | RegExp,
        o: { user?: SlackUser; actionTs?: string; headers?: Record<string, string> } = {},
      ) =>
        post(
          buttonClick(slack, message, label, {
            user: o.user ?? OPERATOR,
            team: slack.teamId,
            actionTs: o.actionTs,
          }),
          o.headers,
        ),
      say: (text: string) => update(messageUpdate(text, TG_CHAT, TG_OPERATOR, ++tgUpdate)),
      tap: (message: FakeMessage, label: string | RegExp) =>
        update(callbackUpdate(message, buttonData(message, label), TG_OPERATOR, ++tgUpdate)),
      webhook: (family: WebhookFamily, body: unknown) =>
        postSigned(origin, family, body, { secret: family === "orders" ? ORDER_SECRET : REPORT_SECRET }),
    };
  }

  return { sandbox, slack, ...(telegram && { telegram }), start };
}

/** Resolves with the first truthy value of `check` (sync or async); fails naming `what`. */
export const eventually = <T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 8_000,
): Promise<T> => waitFor(check, what, timeoutMs, 20);
