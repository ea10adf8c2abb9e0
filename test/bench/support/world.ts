import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { destination } from "pino";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig, secretValues } from "../../../src/config/load-config.js";
import { createLogger } from "../../../src/log.js";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../../src/sandbox/accounts.js";
import { createFakeSlackApi, FAKE_SLACK_BOT_TOKEN, type FakeSlackApi } from "../../fakes/slack-api.js";
import { createFakeTelegramApi, FAKE_BOT_TOKEN, type FakeTelegramApi } from "../../fakes/telegram-api.js";
import { onCleanup } from "./cleanup.js";
import { LOOPBACK, waitHealthy } from "./net.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";
import { BENCH_ORDER_SECRET, BENCH_SIGNING_SECRET, BENCH_TELEGRAM_SECRET } from "./requests.js";

/**
 * What every figure shares: the private redis-server, the fake Slack and Telegram APIs, the
 * directory the bots log into, and how to start a bot: in process through `startApp` (figures
 * 1–4) or as the built program in a child process (figures 5–6), from the same environment.
 */
export interface World {
  repo: string;
  redis: RedisServer;
  slack: FakeSlackApi;
  telegram: FakeTelegramApi;
  logDir: string;
}

/** The one chat the bench's Telegram bots allow (a private chat: its id is its user's). */
export const BENCH_TELEGRAM_CHAT = "1001";
const BENCH_PUBLIC_URL = "https://opsbot.bench";

export async function startWorld(repo: string): Promise<World> {
  const logDir = mkdtempSync(join(tmpdir(), "opsbot-bench-logs-"));
  const redis = await startRedisServer();
  const slack = await createFakeSlackApi();
  onCleanup("fake Slack API", () => slack.close());
  const telegram = await createFakeTelegramApi();
  onCleanup("fake Telegram API", () => telegram.close());
  return { repo, redis, slack, telegram, logDir };
}

export interface BotEnvOptions {
  redisUrl: string;
  serviceUrl: string;
  port?: number;
  /** Telegram in webhook mode against the fake, besides Slack. */
  telegram?: boolean;
}

/** The environment of CONTRACT.md for a bot wired to the bench's fakes, sandbox and Redis. */
export function botEnv(world: World, o: BotEnvOptions): Record<string, string> {
  return {
    ...(o.port !== undefined && { PORT: String(o.port) }),
    REDIS_URL: o.redisUrl,
    SERVICE_BASE_URL: o.serviceUrl,
    SERVICE_API_KEY: DEFAULT_API_KEY,
    SERVICE_REAL_IP: DEFAULT_REAL_IP,
    SLACK_BOT_TOKEN: FAKE_SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
    SLACK_API_URL: world.slack.apiUrl,
    ORDER_WEBHOOK_SECRETS: BENCH_ORDER_SECRET,
    LOG_LEVEL: "info",
    ...(o.telegram && {
      TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN,
      TELEGRAM_API_ROOT: world.telegram.url,
      TELEGRAM_WEBHOOK_SECRET: BENCH_TELEGRAM_SECRET,
      TELEGRAM_ALLOWED_CHATS: BENCH_TELEGRAM_CHAT,
      PUBLIC_URL: BENCH_PUBLIC_URL,
    }),
  };
}

export interface InProcessBot {
  app: App;
  origin: string;
  logFile: string;
  stop(): Promise<void>;
}

/** A full bot through `startApp` (its own Redis key prefix), ready when /healthz answers 200. */
export async function startBot(
  world: World,
  name: string,
  serviceUrl: string,
  env: Record<string, string> = {},
): Promise<InProcessBot> {
  const base = botEnv(world, { redisUrl: world.redis.url, serviceUrl });
  const config = { ...loadConfig({ ...base, ...env }), port: 0 };
  const logFile = join(world.logDir, `${name}.log`);
  const stream = destination({ dest: logFile, sync: false, mkdir: true });
  const logger = createLogger({ level: config.logLevel, destination: stream, secrets: secretValues(config) });
  const app = await startApp({ config, logger, redisPrefix: `bench:${name}:` });
  const handle = onCleanup(`bot ${name}`, async () => {
    await app.stop();
    stream.flushSync();
  });
  const origin = `http://${LOOPBACK}:${app.port}`;
  await waitHealthy(origin, performance.now(), 15_000);
  return { app, origin, logFile, stop: handle.stop };
}

/** Warnings and errors a bot logged (pino levels ≥ 40), for the notes: count and first messages. */
function loggedProblems(logFile: string): { warnings: number; errors: number; first: string[] } {
  let text = "";
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return { warnings: 0, errors: 0, first: [] };
  }
  let warnings = 0;
  let errors = 0;
  const first = new Set<string>();
  for (const line of text.split("\n")) {
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (level === undefined || Number(level) < 40) continue;
    if (Number(level) >= 50) errors += 1;
    else warnings += 1;
    const msg = /"msg":"([^"]*)"/.exec(line)?.[1];
    if (msg && first.size < 3) first.add(msg.slice(0, 120));
  }
  return { warnings, errors, first: [...first] };
}

export function problemNote(name: string, logFile: string): string | undefined {
  const p = loggedProblems(logFile);
  if (p.warnings + p.errors === 0) return undefined;
  return `${name} logged ${p.warnings} warnings and ${p.errors} errors (${logFile}); first: ${p.first.join(" | ")}`;
}
