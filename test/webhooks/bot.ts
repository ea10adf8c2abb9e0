import { Redis } from "ioredis";
import { sleep } from "../../src/clock.js";
import { actionHandlers, commands } from "../../src/core/command-registry.js";
import { type Core, createCore } from "../../src/core/core.js";
import type { CoreDeps } from "../../src/core/deps.js";
import type { ConversationRef, Platform } from "../../src/core/invocation.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import type { ChatAdapter } from "../../src/core/ports.js";
import type { Reply } from "../../src/core/reply.js";
import { createTrackedHandlers } from "../../src/core/tracking-registry.js";
import { createHttpServer, type HttpRoute } from "../../src/http/server.js";
import { createBullQueues } from "../../src/jobs/bull-queue.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { JobQueue, JobWorker } from "../../src/jobs/queue.js";
import { createJobScheduler, startTrackedWorker } from "../../src/jobs/scheduler.js";
import { createNotifier, startNotifyWorker } from "../../src/outbox/outbox.js";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import type { Sandbox } from "../../src/sandbox/server.js";
import { createServiceClient } from "../../src/service/client.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import type { Store } from "../../src/store/store.js";
import { createHostCallbackHandler } from "../../src/webhooks/host-callback-route.js";
import { createInbox } from "../../src/webhooks/inbox.js";
import { startWebhooks } from "../../src/webhooks/index.js";
import { createSecretSource } from "../../src/webhooks/secret-source.js";
import { createServiceWebhookHandler } from "../../src/webhooks/service-webhook-route.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";
import { waitFor as waitUntil } from "../support/bot-kit.js";
import { baseSettings, type SettingsOverrides, withSettings } from "../support/settings.js";

/**
 * The bot's inbound side over real parts, wired as src/app.ts wires it: one `node:http` server
 * with the webhook and callback routes, the real service client against the sandbox, the store
 * and queues (in-process, or Redis + BullMQ), the notifier and its worker delivering to a
 * recording chat whose API can be taken down, and the core with the real registry (for `setup`).
 */
export const PUBLIC_URL = "https://opsbot.test";
export const HOST_TOKEN = "host-token-0123456789abcdef";

interface Delivered {
  conversation: ConversationRef;
  reply: Reply;
}

/** A chat API for every platform that records what it was sent; `down` makes every send fail. */
export function createRecordingChat() {
  const delivered: Delivered[] = [];
  let failures = 0;
  const state = { down: false };
  const adapters = new Map<Platform, ChatAdapter>();
  for (const platform of ["slack", "telegram", "console"] as const) {
    adapters.set(platform, {
      platform,
      async send(conversation, reply) {
        if (state.down) {
          failures += 1;
          throw Object.assign(new Error("chat API unavailable"), { code: "platform_down", retryAfterMs: 30 });
        }
        delivered.push({ conversation, reply });
        return { messageId: String(delivered.length) };
      },
    });
  }
  return {
    delivered,
    adapters,
    failures: () => failures,
    setDown(down: boolean) {
      state.down = down;
    },
    to: (conversation: ConversationRef) =>
      delivered.filter(
        (d) => d.conversation.platform === conversation.platform && d.conversation.id === conversation.id,
      ),
  };
}

type RecordingChat = ReturnType<typeof createRecordingChat>;

export interface BotOptions {
  /** Port to listen on (default a free one); a restarted bot takes the port of the one it replaces. */
  port?: number;
  /** The sandbox, or a factory given the bot's origin (for the sandbox's `originMap`). */
  sandbox: Sandbox | ((origin: string) => Promise<Sandbox>);
  /** Redis + BullMQ (prefix per test); unset: in-process store and queues. */
  redis?: { url: string; prefix: string };
  chat?: RecordingChat;
  alerts?: ConversationRef[];
  originGraceMs?: number[];
  configured?: { orders: string[]; reports: string[] };
  /** Only the HTTP ingest (a bot that dies right after acknowledging). Default: everything. */
  ingestOnly?: boolean;
  settings?: SettingsOverrides;
}

export interface Bot {
  origin: string;
  port: number;
  sandbox: Sandbox;
  store: Store;
  queues: JobQueue;
  deps: CoreDeps;
  core: Core;
  chat: RecordingChat;
  logger: ReturnType<typeof createMemoryLogger>;
  close(): Promise<void>;
}

const FAST_NOTIFY = { attempts: 200, backoff: { delayMs: 20, maxDelayMs: 100 } };

export async function startBot(options: BotOptions): Promise<Bot> {
  const closers: (() => Promise<void>)[] = [];
  const routes: HttpRoute[] = [];
  const logger = createMemoryLogger();
  const http = createHttpServer({
    routes,
    onError: (err, route) => logger.error({ err, route: route.path }, "HTTP handler failed"),
  });
  const port = await http.listen(options.port ?? 0, "127.0.0.1");
  const origin = `http://127.0.0.1:${port}`;
  closers.push(() => http.close());
  const sandbox = typeof options.sandbox === "function" ? await options.sandbox(origin) : options.sandbox;

  const { store, queues } = backends(options.redis, closers);
  const chat = options.chat ?? createRecordingChat();
  const service = createServiceClient({
    baseUrl: sandbox.url,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
    maxAttempts: 2,
    maxRetryWaitMs: 50,
  });
  const deps: CoreDeps = {
    service,
    store,
    jobs: createJobScheduler(queues),
    notifier: createNotifier(queues, { store, watchMs: 50, retry: FAST_NOTIFY }),
    now: Date.now,
    logger,
    settings: withSettings(baseSettings, {
      publicUrl: PUBLIC_URL,
      hostCallbackToken: HOST_TOKEN,
      ...options.settings,
    }),
    platforms: PLATFORM_FACTS,
  };
  const core = createCore(deps, { commands, actions: actionHandlers });
  const configured = options.configured ?? { orders: [], reports: [] };

  if (options.ingestOnly) {
    routes.push(...ingestRoutes(deps, queues, configured));
  } else {
    const workers: JobWorker[] = [
      await startTrackedWorker(queues, createTrackedHandlers(deps), { logger }),
      await startNotifyWorker(queues, {
        adapters: chat.adapters,
        platforms: deps.platforms,
        store,
        watchMs: 50,
        logger,
        gapMs: () => 0,
      }),
    ];
    const webhooks = await startWebhooks({
      deps,
      queues,
      secrets: configured,
      alerts: options.alerts ?? [],
      originGraceMs: options.originGraceMs ?? [20, 40, 80],
    });
    routes.push(...webhooks.routes);
    workers.push(webhooks.worker);
    closers.push(async () => void (await Promise.all(workers.map((w) => w.close()))));
  }
  return {
    origin,
    port,
    sandbox,
    store,
    queues,
    deps,
    core,
    chat,
    logger,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

/** The routes alone, with no worker behind them (the same handlers `startWebhooks` mounts). */
function ingestRoutes(deps: CoreDeps, queues: JobQueue, configured: { orders: string[]; reports: string[] }) {
  const common = { inbox: createInbox(queues), logger: deps.logger, now: deps.now };
  const secrets = createSecretSource({ store: deps.store, configured, logger: deps.logger });
  const routes: HttpRoute[] = [
    {
      method: "POST",
      path: "/webhooks/orders",
      handler: createServiceWebhookHandler("orders", { ...common, secrets }),
    },
    {
      method: "POST",
      path: "/webhooks/reports",
      handler: createServiceWebhookHandler("reports", { ...common, secrets }),
    },
    {
      method: "GET",
      path: "/callbacks/host/:token",
      handler: createHostCallbackHandler({ ...common, token: deps.settings.hostCallbackToken }),
    },
  ];
  return routes;
}

function backends(
  redis: BotOptions["redis"],
  closers: (() => Promise<void>)[],
): { store: Store; queues: JobQueue } {
  if (!redis) {
    const queues = createMemoryQueues();
    closers.push(() => queues.close());
    return { store: createMemoryStore(), queues };
  }
  const connection = new Redis(redis.url);
  closers.push(async () => void (await connection.quit().catch(() => connection.disconnect())));
  const queues = createBullQueues({ connection: { url: redis.url }, prefix: `${redis.prefix}jobs` });
  closers.push(() => queues.close());
  return { store: createRedisStore({ redis: connection, prefix: redis.prefix }), queues };
}

/** Resolves once `check` holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  await waitUntil(check, what, timeoutMs);
}

/** Lets background work that should NOT happen get its chance to happen, before asserting it did not. */
export const quietPeriod = (ms = 300): Promise<void> => sleep(ms);
