import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import type { Readable, Writable } from "node:stream";
import { Redis } from "ioredis";
import { createConsoleAdapter } from "../adapters/console/index.js";
import { createSlackAdapter, type SlackAdapter } from "../adapters/slack/index.js";
import { createTelegramAdapter, type TelegramAdapter } from "../adapters/telegram/index.js";
import type { Config } from "./config.js";
import { actionHandlers, commands } from "./core/commands/index.js";
import { type Core, createCore } from "./core/core.js";
import type { CoreDeps } from "./core/deps.js";
import { homeSummary } from "./core/home.js";
import type { Actor, ConversationRef, Platform } from "./core/invocation.js";
import type { ChatAdapter } from "./core/ports.js";
import { createTrackedHandlers } from "./core/tracking/index.js";
import { createHealth } from "./http/health.js";
import { createHttpServer, type HttpRoute, sendJson } from "./http/server.js";
import { createBullQueues, createMemoryQueues } from "./jobs/index.js";
import { createNotifier, startNotifyWorker } from "./jobs/notify.js";
import type { JobQueue, JobWorker } from "./jobs/queue.js";
import { createJobScheduler, startTrackedWorker } from "./jobs/scheduler.js";
import type { Logger } from "./log.js";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "./sandbox/accounts.js";
import { createSandbox, type Sandbox } from "./sandbox/server.js";
import { createServiceClient } from "./service/client.js";
import { createRateLimiter } from "./service/limiter.js";
import { createMemoryStore, createRedisStore, type Store } from "./store/index.js";
import { alertConversations, registerDemoWebhooks, startWebhooks, WEBHOOK_QUEUE } from "./webhooks/index.js";

/** The public origin the demo sandbox believes the bot has; it delivers callbacks to the real port. */
export const DEMO_PUBLIC_URL = "https://opsbot.sandbox";
const EXPLORER_TX_URL = "https://tronscan.org/#/transaction/";
const HOST_TOKEN_KEY = "host-callback-token";
const REDIS_PREFIX = "opsbot:";

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Console adapter streams; the console runs when neither Slack nor Telegram is configured. */
  stdin?: Readable;
  stdout?: Writable;
  /** Key prefix in Redis (tests run several bots on one server). */
  redisPrefix?: string;
}

export interface App {
  readonly core: Core;
  readonly deps: CoreDeps;
  readonly sandbox?: Sandbox;
  readonly port: number;
  /** Resolves when the console's input has ended (demo on a pipe); never for chat platforms. */
  readonly consoleFinished?: Promise<void>;
  /** Waits until no tracked or notification job is pending (bounded). */
  drain(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startApp(options: AppOptions): Promise<App> {
  const { config, logger } = options;
  const prefix = options.redisPrefix ?? REDIS_PREFIX;
  const closers: (() => Promise<void>)[] = [];
  const health = createHealth();
  const routes: HttpRoute[] = [];

  const http = createHttpServer({
    routes,
    onError: (error, route) => logger.error({ err: error, route: route.path }, "HTTP handler failed"),
  });
  routes.push({
    method: "GET",
    path: "/healthz",
    handler: async (_req, res) => {
      const report = await health.report();
      sendJson(res, report.ok ? 200 : 503, report);
    },
  });
  const port = await http.listen(config.port);
  closers.push(() => http.close());

  const store = createStoreFor(config, prefix, logger);
  closers.push(() => store.close());
  health.add({ name: "store", ready: () => store.ping() });

  const sandbox = config.service.mode === "sandbox" ? await startDemoSandbox(config, port) : undefined;
  if (sandbox) closers.push(() => sandbox.close());
  const limiterRedis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false }) : undefined;
  limiterRedis?.on("error", (error) => logger.warn({ err: error }, "rate limiter Redis connection error"));
  if (limiterRedis) closers.push(async () => void (await limiterRedis.quit().catch(() => {})));
  const service = createServiceClient({
    ...(config.service.mode === "remote"
      ? { baseUrl: config.service.baseUrl, apiKey: config.service.apiKey, realIp: config.service.realIp }
      : { baseUrl: sandbox?.url ?? "", apiKey: DEFAULT_API_KEY, realIp: DEFAULT_REAL_IP }),
    limiter: createRateLimiter({ redis: limiterRedis, keyPrefix: `${prefix}rl:` }),
  });

  const queues: JobQueue = config.redisUrl
    ? createBullQueues({
        connection: { url: config.redisUrl },
        prefix: `${prefix}jobs`,
        onError: (error) => logger.warn({ err: error }, "job queue connection error"),
      })
    : createMemoryQueues();

  const consoleActor: Actor = { platform: "console", userId: safeUserName() };
  const consoleEnabled = !config.slack && !config.telegram;
  const deps: CoreDeps = {
    service,
    store,
    jobs: createJobScheduler(queues),
    notifier: createNotifier(queues, { store }),
    now: Date.now,
    logger,
    settings: {
      publicUrl: config.publicUrl ?? (sandbox ? DEMO_PUBLIC_URL : undefined),
      hostCallbackToken: config.hostCallbackToken ?? (await hostCallbackToken(store)),
      maxOrderTrx: config.limits.maxOrderTrx,
      dailyLimitTrx: config.limits.dailyLimitTrx,
      // Whoever holds the local terminal holds the process: the console user is an admin.
      admins: consoleEnabled
        ? [...config.roles.admins, `console:${consoleActor.userId}`]
        : config.roles.admins,
      operators: config.roles.operators,
      explorerTxUrl: EXPLORER_TX_URL,
    },
  };
  const core = createCore(deps, { commands, actions: actionHandlers });

  const adapters = new Map<Platform, ChatAdapter>();
  let consoleFinished: Promise<void> | undefined;
  if (consoleEnabled) {
    const conversation: ConversationRef = { platform: "console", id: "console" };
    const consoleAdapter = createConsoleAdapter({
      input: options.stdin ?? process.stdin,
      output: options.stdout ?? process.stdout,
      core,
      actor: consoleActor,
      conversation,
    });
    adapters.set("console", consoleAdapter);
    consoleFinished = consoleAdapter.finished;
    closers.push(() => consoleAdapter.close());
    health.add({ name: "console", ready: () => true });
  }
  let telegram: TelegramAdapter | undefined;
  if (config.telegram) {
    telegram = createTelegramAdapter({
      config: config.telegram,
      publicUrl: config.publicUrl,
      core,
      store,
      logger,
      notifier: deps.notifier,
    });
    adapters.set("telegram", telegram);
    if (telegram.route) routes.push(telegram.route);
    health.add({ name: "telegram", ready: () => telegram?.ready() ?? false });
    await telegram.start();
  }
  let slack: SlackAdapter | undefined;
  if (config.slack) {
    slack = createSlackAdapter({
      config: config.slack,
      core,
      store,
      logger,
      homeReply: (actor) => homeSummary(deps, { actor, commands }),
      fallback: (conversation, reply) => deps.notifier.post(conversation, reply),
    });
    adapters.set("slack", slack);
    if (slack.route) routes.push(slack.route);
    health.add({ name: "slack", ready: () => slack?.ready() ?? false });
    await slack.start();
  }

  const workers: JobWorker[] = [
    await startTrackedWorker(queues, createTrackedHandlers(deps), { logger }),
    await startNotifyWorker(queues, { adapters, logger }),
  ];
  // Webhooks and Host Mode callbacks: routes on the one server, and the worker that posts them.
  const consoleAlerts: ConversationRef | undefined = consoleEnabled
    ? { platform: "console", id: "console" }
    : undefined;
  const webhooks = await startWebhooks({
    deps,
    queues,
    secrets: config.webhookSecrets,
    alerts: alertConversations(config, consoleAlerts),
  });
  routes.push(...webhooks.routes);
  workers.push(webhooks.worker);
  if (sandbox) await registerDemoWebhooks(deps);
  closers.push(() => queues.close());
  closers.push(async () => {
    await Promise.all(workers.map((w) => w.close()));
  });
  // Stops taking updates and finishes those in flight while the queues still take their replies.
  if (telegram) closers.push(() => telegram.stop());
  if (slack) closers.push(() => slack.close());
  health.add({ name: "queues", ready: () => true });

  let stopped = false;
  return {
    core,
    deps,
    sandbox,
    port,
    consoleFinished,
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const counts = await Promise.all(["tracked", "notify", WEBHOOK_QUEUE].map((q) => queues.counts(q)));
        if (counts.every((c) => c.waiting + c.active + c.delayed === 0)) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // Reverse order of start: stop accepting, finish work in flight, then close connections.
      for (const close of closers.reverse()) {
        await close().catch((error) => logger.warn({ err: error }, "error while stopping"));
      }
    },
  };
}

function createStoreFor(config: Config, prefix: string, logger: Logger): Store {
  if (!config.redisUrl) return createMemoryStore();
  return createRedisStore({
    url: config.redisUrl,
    prefix,
    onError: (error) => logger.warn({ err: error }, "store Redis connection error"),
  });
}

async function startDemoSandbox(config: Config, botPort: number): Promise<Sandbox> {
  const publicUrl = config.publicUrl ?? DEMO_PUBLIC_URL;
  return createSandbox({
    apiKey: DEFAULT_API_KEY,
    outbound: { originMap: { [new URL(publicUrl).origin]: `http://127.0.0.1:${botPort}` } },
  });
}

/** HOST_CALLBACK_TOKEN unset: one random token, generated once and shared through the store. */
async function hostCallbackToken(store: Store): Promise<string> {
  await store.setIfNotExists(HOST_TOKEN_KEY, randomBytes(24).toString("base64url"));
  const token = await store.get(HOST_TOKEN_KEY);
  if (!token) throw new Error("could not read the Host Mode callback token from the store");
  return token;
}

function safeUserName(): string {
  try {
    return userInfo().username || "operator";
  } catch {
    return "operator";
  }
}
