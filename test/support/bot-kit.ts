/**
 * What every in-process bot of the tests is built from, over real parts:
 *
 * - the sandbox service on a free port (`startTestSandbox`: rate limits off, screening checks of
 *   20 ms with a wait cap of 1 s, unless `sandbox` says otherwise) and the real service client
 *   over HTTP (`sandboxClient`: one attempt per call unless `client` says otherwise);
 * - a store (a memory store unless one is given), a memory logger, the core's clock `now`;
 * - the real job system on the in-process queue: `createJobScheduler` + `startTrackedWorker` with
 *   the core's tracked handlers, which recover a durable action with the registry's action
 *   handlers as the app does (`createTrackedHandlers(deps, actions)`, or `tracked`), and
 *   `createNotifier` + `startNotifyWorker` delivering through the chat adapters the caller starts
 *   the workers with. Every delay of the queue (poll delays, retries) is multiplied by `timeScale`
 *   (default 0.01: a 2 s poll runs after 20 ms), so pending work finishes in test time;
 * - `createCore` with the real registry (`command-registry.ts`) unless `registry` is given.
 *
 * The Slack and Telegram harnesses add their adapter, its fake platform API and the bot's HTTP
 * server; core-harness.ts adds recording chat adapters.
 */
import { alertPosted } from "../../src/core/alerts/posted.js";
import { actionHandlers, commands } from "../../src/core/command-registry.js";
import { type Core, type CoreRegistry, createCore } from "../../src/core/core.js";
import type { CoreDeps, CoreSettings } from "../../src/core/deps.js";
import type { ConversationRef, Platform } from "../../src/core/invocation.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import type { ChatAdapter, JobScheduler, Notifier } from "../../src/core/ports.js";
import { createTrackedHandlers } from "../../src/core/tracking-registry.js";
import { createMemoryQueues } from "../../src/jobs/memory-queue.js";
import type { AddOptions, JobHandler, JobQueue, JobWorker } from "../../src/jobs/queue.js";
import { createJobScheduler, startTrackedWorker, type TrackedHandlers } from "../../src/jobs/scheduler.js";
import { createNotifier, startNotifyWorker } from "../../src/outbox/outbox.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";
import type { ServiceClient, ServiceClientOptions } from "../../src/service/client.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import type { Store } from "../../src/store/store.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";
import { sandboxClient } from "./service-kit.js";
import { baseSettings, type SettingsOverrides, withSettings } from "./settings.js";

/** Energy orders, orchestrator steps, Host Mode cycles and webhooks of a few milliseconds. */
export const FAST_ENERGY = {
  order5mLatencyMs: 20,
  orchestratorStepMs: 15,
  hostFirstCycleMs: 20,
  webhookDelayMs: 5,
} as const satisfies SandboxOptions["energy"];

/** The sandbox for bot tests: rate limits off and screening checks of 20 ms (wait cap 1 s), `options` over them. */
export function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return createSandbox({
    enforceRateLimits: false,
    ...options,
    screening: { durationMs: 20, maxWaitMs: 1_000, ...options.screening },
  });
}

/** The sandbox as the chat platform harnesses run it: `startTestSandbox` with fast energy and reports of 30 ms. */
function startChatSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startTestSandbox({
    ...options,
    energy: { ...FAST_ENERGY, ...options.energy },
    account: { reports: { buildMs: 30 }, ...options.account },
  });
}

/** What both chat platform harnesses let a test choose about the bot behind the adapter. */
export interface ChatKitOptions {
  sandbox?: SandboxOptions;
  store?: Store;
  /** Factor applied to every queue delay (default 0.01: a 2 s poll runs after 20 ms). */
  timeScale?: number;
  /** Merged over the harness's core settings (approval threshold, caps, …). */
  settings?: SettingsOverrides;
  /** The core's clock (default Date.now): a test moves it past a TTL. */
  now?: () => number;
  registry?: CoreRegistry;
  /** The notify worker's pace per conversation (default none: every notice alone, at once). */
  notifyGapMs?: (conversation: ConversationRef) => number;
  /** Wraps the job queue, under the time scaling (a test records what was asked of it, as asked). */
  queues?: (queues: JobQueue) => JobQueue;
  /**
   * The notify worker records the message id of an alert's or a case's post, as the app does
   * (src/wiring/workers.ts), so a later change edits that message in place. Default off.
   */
  recordPosted?: boolean;
}

/**
 * The bot kit behind a chat platform harness: `startChatSandbox`, the tests' public URL and
 * explorer, the platform's callback token and roles, then the test's `settings` over them.
 */
export async function startChatKit(
  options: ChatKitOptions,
  platform: Pick<CoreSettings, "hostCallbackToken" | "admins" | "operators" | "userGroups">,
): Promise<BotKit> {
  return startBotKit({
    sandbox: await startChatSandbox(options.sandbox),
    ...(options.store && { store: options.store }),
    ...(options.now && { now: options.now }),
    ...(options.timeScale !== undefined && { timeScale: options.timeScale }),
    ...(options.registry && { registry: options.registry }),
    ...(options.notifyGapMs && { notifyGapMs: options.notifyGapMs }),
    ...(options.queues && { queues: options.queues }),
    ...(options.recordPosted && { recordPosted: true }),
    settings: {
      publicUrl: "https://opsbot.test",
      explorerTxUrl: "https://tronscan.org/#/transaction/",
      ...platform,
      ...options.settings,
    },
  });
}

export interface BotKitOptions {
  /** The sandbox, already started (default: `startTestSandbox(sandboxOptions)`). */
  sandbox?: Sandbox;
  sandboxOptions?: SandboxOptions;
  /** Merged over the defaults of `sandboxClient`. */
  client?: Partial<ServiceClientOptions>;
  /** The store (default: a memory store, closed with the kit; a given one is left open). */
  store?: Store;
  /** The core's clock (default Date.now). */
  now?: () => number;
  /** Merged over `baseSettings` (test/support/settings.ts: the declared defaults), group by group. */
  settings: SettingsOverrides;
  registry?: CoreRegistry;
  /** The tracked handlers (default: the core's, with the registry's action handlers). */
  tracked?: (deps: CoreDeps) => TrackedHandlers;
  /** Factor applied to every queue delay (default 0.01). */
  timeScale?: number;
  /** Wraps the job scheduler the core gets (a test records what was scheduled). */
  jobs?: (scheduler: JobScheduler) => JobScheduler;
  /** Wraps the notifier the core gets (a test records what was posted). */
  notifier?: (notifier: Notifier) => Notifier;
  /** The notify worker's pace per conversation (default none). */
  notifyGapMs?: (conversation: ConversationRef) => number;
  /** Wraps the job queue, under the time scaling (a test records what was asked of it, as asked). */
  queues?: (queues: JobQueue) => JobQueue;
  /** Records where alerts and cases were posted, as the app does (`ChatKitOptions.recordPosted`). */
  recordPosted?: boolean;
}

export interface BotKit {
  sandbox: Sandbox;
  service: ServiceClient;
  store: Store;
  logger: ReturnType<typeof createMemoryLogger>;
  queues: JobQueue;
  deps: CoreDeps;
  core: Core;
  /** Starts the tracked worker and the notify worker delivering through `adapters`. */
  startWorkers(adapters: ReadonlyMap<Platform, ChatAdapter>): Promise<void>;
  /**
   * Waits until `idle` (an adapter's: no update being handled) has resolved and no tracked or
   * notify job is waiting or running and no notification is delayed. A delayed tracked job (a
   * delivery watch may wait minutes) counts only with `delayedTracked`: tests wait for its effect.
   */
  settle(
    timeoutMs?: number,
    options?: { idle?: (timeoutMs: number) => Promise<void>; delayedTracked?: boolean },
  ): Promise<void>;
  /** Closes the workers, the queues, the sandbox and the store the kit made. */
  close(): Promise<void>;
}

export async function startBotKit(options: BotKitOptions): Promise<BotKit> {
  const sandbox = options.sandbox ?? (await startTestSandbox(options.sandboxOptions));
  const service = sandboxClient(sandbox, options.client);
  const store = options.store ?? createMemoryStore();
  const logger = createMemoryLogger();
  const memory = createMemoryQueues();
  const queues = timeScaled(options.queues?.(memory) ?? memory, options.timeScale ?? 0.01);
  const scheduler = createJobScheduler(queues);
  const notifier = createNotifier(queues, { store, watchMs: 50 });
  const deps: CoreDeps = {
    service,
    store,
    jobs: options.jobs?.(scheduler) ?? scheduler,
    notifier: options.notifier?.(notifier) ?? notifier,
    now: options.now ?? Date.now,
    logger,
    settings: withSettings(baseSettings, options.settings),
    platforms: PLATFORM_FACTS,
  };
  const registry = options.registry ?? { commands, actions: actionHandlers };
  const core = createCore(deps, registry);
  const workers: JobWorker[] = [];

  async function startWorkers(adapters: ReadonlyMap<Platform, ChatAdapter>): Promise<void> {
    const tracked = options.tracked?.(deps) ?? createTrackedHandlers(deps, registry.actions);
    workers.push(
      await startTrackedWorker(queues, tracked, { logger }),
      await startNotifyWorker(queues, {
        adapters,
        platforms: deps.platforms,
        store,
        watchMs: 50,
        logger,
        gapMs: options.notifyGapMs ?? (() => 0),
        ...(options.recordPosted && {
          onPosted: (conversation, reply, messageId) => alertPosted(deps, conversation, reply, messageId),
        }),
      }),
    );
  }

  async function settle(timeoutMs = 5_000, o: Parameters<BotKit["settle"]>[1] = {}): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await o.idle?.(timeoutMs);
      const [tracked, notify] = await Promise.all(["tracked", "notify"].map((q) => queues.counts(q)));
      const busy = [tracked?.waiting, tracked?.active, notify?.waiting, notify?.active, notify?.delayed];
      if (o.delayedTracked) busy.push(tracked?.delayed);
      if (busy.every((n) => (n ?? 0) === 0)) {
        await o.idle?.(timeoutMs);
        return;
      }
      if (Date.now() > deadline) throw new Error(`jobs still running after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  return {
    sandbox,
    service,
    store,
    logger,
    queues,
    deps,
    core,
    startWorkers,
    settle,
    async close() {
      await Promise.all(workers.splice(0).map((w) => w.close()));
      await queues.close();
      await sandbox.close();
      if (!options.store) await store.close();
    },
  };
}

/** Multiplies every delay the queue would wait by `scale`, so polls and retries run in test time. */
function timeScaled(queues: JobQueue, scale: number): JobQueue {
  // A positive delay stays at least 1 ms: scaled to 0 it would turn a job that looks again later
  // (a recovery waiting out a live run's lease) into a loop that starves the event loop.
  const scaled = (ms: number) => (ms > 0 ? Math.max(1, Math.round(ms * scale)) : 0);
  const scaleOptions = (o: AddOptions = {}): AddOptions => ({
    ...o,
    ...(o.delayMs !== undefined && { delayMs: scaled(o.delayMs) }),
    ...(o.backoff && {
      backoff: { delayMs: scaled(o.backoff.delayMs), maxDelayMs: scaled(o.backoff.maxDelayMs) },
    }),
  });
  return {
    ...queues,
    add: (queue, name, data, o) => queues.add(queue, name, data, scaleOptions(o)),
    process: <T>(queue: string, handler: JobHandler<T>, o: { concurrency: number }) =>
      queues.process<T>(
        queue,
        async (job) => {
          let outcome: Awaited<ReturnType<JobHandler<T>>>;
          try {
            outcome = await handler(job);
          } catch (error) {
            // A platform's "retry after N s" (a 429) is waited in test time too.
            const hinted = error as { retryAfterMs?: unknown };
            if (typeof hinted?.retryAfterMs === "number") hinted.retryAfterMs = scaled(hinted.retryAfterMs);
            throw error;
          }
          return outcome === "done" ? outcome : { ...outcome, laterMs: scaled(outcome.laterMs) };
        },
        o,
      ),
    pace: async (key, gapMs, notBeforeMs) => scaled(await queues.pace(key, gapMs, notBeforeMs)),
  };
}

/**
 * Resolves with the first truthy value of `check` (sync or async), asked every `intervalMs`;
 * fails after `timeoutMs` naming `what`.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
