import { hkdfSync } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { within } from "./clock.js";
import type { Config } from "./config/load-config.js";
import type { ChatAdapter, CoreDeps, CoreSettings, FaultPoint, Platform } from "./core/index.js";
import {
  actionHandlers,
  agentRequestLifecycle,
  type Core,
  commands,
  createCore,
  createUserGroupDirectory,
  loadPdfLibraries,
} from "./core/index.js";
import { createHealth } from "./http/health.js";
import { healthRoute, metricsRoute } from "./http/ops-routes.js";
import { createHttpServer, type HttpRoute } from "./http/server.js";
import { type JobQueue, queueDepths } from "./jobs/queue.js";
import { createJobScheduler } from "./jobs/scheduler.js";
import type { Logger } from "./log.js";
import { mcpRoute } from "./mcp/mcp-route.js";
import { createMetrics, type Metrics, metricsObservers } from "./metrics.js";
import { createNotifier } from "./outbox/outbox.js";
import type { Sandbox } from "./sandbox/server.js";
import { verifyRoutes } from "./verify-page/verify-route.js";
import { registerDemoWebhooks, WEBHOOK_QUEUE } from "./webhooks/index.js";
import { type Backends, DEMO_PUBLIC_URL, startBackends } from "./wiring/backends.js";
import { startChat } from "./wiring/chat.js";
import { ALERT_VARIABLES, alertConversations, PLATFORM_FACTS, platformAdmins } from "./wiring/platforms.js";
import { createShutdown, type Shutdown } from "./wiring/shutdown.js";
import { startWorkers } from "./wiring/workers.js";

const EXPLORER_TX_URL = "https://tronscan.org/#/transaction/";
const REDIS_PREFIX = "opsbot:";
const PDF_PRELOAD_DELAY_MS = 30_000;
/** What `/mcp` tells an agent at `initialize`. */
const MCP_SERVER_VERSION = "1.0.0";
/** CONTRACT.md: on SIGTERM the bot finishes what is in flight within ~10 s; main adds a hard limit. */
export const STOP_BUDGET_MS = 9_000;
/** A queue that does not answer its depth by then is not ready (Redis down or overloaded). */
const QUEUE_CHECK_TIMEOUT_MS = 1_000;

export interface AppOptions {
  config: Config;
  logger: Logger;
  /** Console adapter streams; the console runs when neither Slack nor Telegram is configured. */
  stdin?: Readable;
  stdout?: Writable;
  /** Key prefix in Redis (tests run several bots on one server). */
  redisPrefix?: string;
  /** Address the HTTP server binds (default every interface; tests use 127.0.0.1). */
  host?: string;
}

export interface App {
  readonly core: Core;
  readonly deps: CoreDeps;
  readonly sandbox?: Sandbox;
  readonly port: number;
  readonly metrics: Metrics;
  /** Resolves when the console's input has ended (demo on a pipe); never for chat platforms. */
  readonly inputFinished?: Promise<void>;
  /** Waits until no tracked or notification job is pending (bounded). */
  drain(timeoutMs: number): Promise<void>;
  /**
   * Stops taking work, finishes what is in flight, closes every connection; within `budgetMs`
   * (default STOP_BUDGET_MS) whatever hangs. Calling it again returns the same promise.
   */
  stop(budgetMs?: number): Promise<void>;
}

export async function startApp(options: AppOptions): Promise<App> {
  const shutdown = createShutdown(options.logger);
  try {
    return await assemble(options, shutdown);
  } catch (error) {
    // A part failed to start: close what did start, so nothing keeps the process (or a test) alive.
    await shutdown.run(STOP_BUDGET_MS);
    throw error;
  }
}

async function assemble(options: AppOptions, shutdown: Shutdown): Promise<App> {
  const { config, logger } = options;
  const health = createHealth();
  const routes: HttpRoute[] = [];
  let state: "starting" | "running" | "stopping" = "starting";

  const http = createHttpServer({
    routes,
    onError: (error, route) => logger.error({ err: error, route: route.path }, "HTTP handler failed"),
  });
  routes.push(healthRoute(health));
  // Until every part has started (routes mounted, adapters up) and again once stopping: 503.
  health.add({ name: "http", ready: () => state === "running" });
  const port = await http.listen(config.port, options.host);
  shutdown.add("accept", "http listener", () => {
    state = "stopping";
    http.stopListening();
  });
  shutdown.add("drain", "http requests", (timeoutMs) => http.close(timeoutMs));

  const metrics = createMetrics();
  const observe = metricsObservers(metrics);
  const backends = await startBackends({
    config,
    logger,
    prefix: options.redisPrefix ?? REDIS_PREFIX,
    botPort: port,
    shutdown,
    onServiceReply: (spec, status, durationMs) => {
      observe.serviceReply(spec, status, durationMs);
      logger.debug({ endpoint: spec.endpoint, status, ms: Math.round(durationMs) }, "service call");
    },
  });
  const { store, queues, sandbox } = backends;
  metrics.readQueueDepths(() => queueDepths(queues));
  routes.push(metricsRoute(metrics.registry));
  health.add({ name: "store", ready: () => store.ping() });
  health.add({ name: "queues", ready: () => queuesAnswer(queues) });

  // The chat adapters are made with the core: they join its deps once started, before any worker runs.
  const chats = new Map<Platform, ChatAdapter>();
  const settings = coreSettings(config, backends);
  const deps: CoreDeps = {
    service: backends.service,
    store,
    jobs: createJobScheduler(queues),
    notifier: createNotifier(
      queues,
      backends.durableStore
        ? { store: backends.durableStore.store, durable: backends.durableStore.confirm }
        : { store },
    ),
    now: Date.now,
    logger,
    settings,
    chats,
    platforms: PLATFORM_FACTS,
    // Agents follow the spends they asked for (src/core/agents/): the one lifecycle hook.
    spendLifecycle: agentRequestLifecycle({ store, now: Date.now, settings }),
    observer: observe.core,
    ...(config.testing?.killAt && { faults: killAtFault(config.testing.killAt, logger) }),
  };
  const core = createCore(deps, { commands, actions: actionHandlers });
  // The public verification page: anyone checks a certificate's or an export's code (and its file).
  routes.push(...verifyRoutes({ deps, limiter: backends.verifyLimiter, logger }));
  const chat = await startChat({ ...options, core, deps, routes, health, shutdown });
  for (const [platform, adapter] of chat.adapters) chats.set(platform, adapter);
  routes.push(...(await startWorkers({ config, deps, queues, adapters: chat.adapters, observe, shutdown })));
  // Agents over MCP: only with OPS_AGENT_TOKENS set (else `/mcp` answers 404).
  if (config.agents.tokens.length > 0) {
    routes.push(
      mcpRoute({
        deps,
        agents: config.agents.tokens,
        limiter: backends.agentLimiter,
        version: MCP_SERVER_VERSION,
        ...(config.publicUrl && { publicUrl: config.publicUrl }),
      }),
    );
  }
  if (sandbox) await registerDemoWebhooks(deps);
  state = "running";
  // Left out of the start (half a second of CPU): loaded once the bot has settled (not in a burst that
  // meets a fresh instance), before a certificate is likely to need it; a certificate sooner loads it.
  setTimeout(() => void loadPdfLibraries().catch(() => {}), PDF_PRELOAD_DELAY_MS).unref();

  return {
    core,
    deps,
    sandbox,
    port,
    metrics,
    ...(chat.inputFinished && { inputFinished: chat.inputFinished }),
    drain: (timeoutMs) => drainQueues(queues, timeoutMs),
    stop: (budgetMs = STOP_BUDGET_MS) => shutdown.run(budgetMs),
  };
}

/**
 * The certificates' key: OPS_CERT_KEY, else HKDF-SHA256 of SERVICE_API_KEY (the same on every
 * instance of one account). The built-in sandbox has no key: a fixed demo key.
 */
function certKeyOf(config: Config): string {
  if (config.certKey !== undefined) return Buffer.from(config.certKey, "utf8").toString("hex");
  const material = config.service.mode === "remote" ? config.service.apiKey : "opsbot-sandbox-demo";
  return Buffer.from(hkdfSync("sha256", material, "opsbot", "opsbot.certificates.v1", 32)).toString("hex");
}

/**
 * The environment's part arrives as `config.core`, already defaulted and in the core's units; this
 * adds only what is not an environment value.
 */
function coreSettings(config: Config, backends: Backends): CoreSettings {
  return {
    ...config.core,
    publicUrl: config.publicUrl ?? (backends.sandbox ? DEMO_PUBLIC_URL : undefined),
    hostCallbackToken: backends.hostCallbackToken,
    // Whoever holds the local terminal holds the process: the console user is an admin.
    admins: [...config.core.admins, ...platformAdmins(config)],
    alertVariables: ALERT_VARIABLES,
    explorerTxUrl: EXPLORER_TX_URL,
    userGroups: createUserGroupDirectory(),
    cases: {
      ...config.core.cases,
      certKeyHex: certKeyOf(config),
      destinations: alertConversations(config),
      ...(config.publicUrl && { verifyUrl: `${config.publicUrl.replace(/\/+$/, "")}/verify` }),
    },
    ...(agentChannel(config) && { agentChannel: agentChannel(config) }),
    ...(config.testing?.intentRecoverMs && {
      intents: { recoverAfterMs: config.testing.intentRecoverMs, leaseMs: config.testing.intentRecoverMs },
    }),
  };
}

/**
 * With agents let in (OPS_AGENT_TOKENS): OPS_AGENT_CHANNEL, else the first alert destination in
 * the platforms' order of preference (src/wiring/platforms.ts). Without agents: none.
 */
function agentChannel(config: Config) {
  if (config.agents.tokens.length === 0) return undefined;
  return config.agents.channel ?? alertConversations(config)[0];
}

/**
 * Test-only (OPSBOT_TEST_KILL_AT): at the named step of a Confirm the flow stops and the process
 * kills itself a moment later, after the acknowledgement has left, as a crash there would.
 */
function killAtFault(point: FaultPoint, logger: Logger): (at: FaultPoint) => Promise<void> {
  return async (at) => {
    if (at !== point) return;
    logger.warn({ point }, "test fault: killing the process");
    setTimeout(() => process.kill(process.pid, "SIGKILL"), 100);
    await new Promise(() => {});
  };
}

/**
 * Waits for the work that comes before `timeoutMs` is up; a job delayed past it (an AML case's
 * SLA in an hour, a delivery watch in minutes) would only keep a finished demo waiting.
 */
async function drainQueues(queues: JobQueue, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = async (queue: string): Promise<number> => {
    if (queues.dueWithin) return queues.dueWithin(queue, deadline - Date.now());
    const c = await queues.counts(queue);
    return c.waiting + c.active + c.delayed;
  };
  while (Date.now() < deadline) {
    const counts = await Promise.all(["tracked", "notify", WEBHOOK_QUEUE].map(pending));
    if (counts.every((n) => n === 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The queues answer (BullMQ: Redis is reachable) within a second. */
const queuesAnswer = (queues: JobQueue): Promise<boolean> =>
  within(
    queues.counts("notify").then(() => true),
    QUEUE_CHECK_TIMEOUT_MS,
    () => false,
  );
