/**
 * A whole core over real parts, for command tests of any verb: the bot kit (`bot-kit.ts`: the
 * sandbox service with rate limits off and short screening durations, override with `sandbox`;
 * the real service client, one attempt per call so each command makes a predictable number of
 * calls, override with `client`; the real core and job system, queue delays multiplied by
 * `timeScale`, default 0.01, so pending work finishes in test time without fake timers), with
 *
 * - a memory store on the harness clock (real time plus whatever the test `advance`s, so TTLs
 *   can be skipped without sleeping);
 * - a recording chat adapter per platform, which the notify worker delivers to.
 *
 * What the test can read: `scheduled` (every `jobs.schedule` call), `notifications` (every
 * `notifier.post` call, with its dedup key), `delivered` (what reached a chat adapter),
 * `sandbox.calls(label)`, `logger.records`. `waitFor` / `settle` wait for the background work.
 */
import { Agent, type Dispatcher, errors } from "undici";
import { afterEach } from "vitest";
import type { Core, CoreRegistry } from "../../src/core/core.js";
import type { CoreDeps } from "../../src/core/deps.js";
import type { Actor, ConversationRef, Platform } from "../../src/core/invocation.js";
import type { createMemoryLogger } from "../../src/core/logger.js";
import type { ChatAdapter, JobScheduler, Notifier, TrackedJob } from "../../src/core/ports.js";
import { type Block, type Button, type Reply, spansToText } from "../../src/core/reply.js";
import type { TrackedHandlers } from "../../src/jobs/scheduler.js";
import type { Sandbox, SandboxOptions } from "../../src/sandbox/server.js";
import type { ServiceClient, ServiceClientOptions } from "../../src/service/client.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import type { Store } from "../../src/store/store.js";
import { admin, channel, operator, viewer } from "../core/support.js";
import { startBotKit, waitFor } from "./bot-kit.js";
import { baseSettings, type SettingsOverrides, withSettings } from "./settings.js";

export { admin, channel, operator, viewer };

export interface CoreHarnessOptions {
  /** Merged over the harness defaults (rate limits off, screening checks of 20 ms, wait cap 1 s). */
  sandbox?: SandboxOptions;
  /** Merged over the harness defaults of the client. */
  client?: Partial<ServiceClientOptions>;
  settings?: SettingsOverrides;
  registry?: CoreRegistry;
  /** The tracked handlers (default: the core's `createTrackedHandlers(deps, registry.actions)`). */
  tracked?: (deps: CoreDeps) => TrackedHandlers;
  /** Factor applied to every queue delay (default 0.01). */
  timeScale?: number;
  /** The store (default: a memory store on the harness clock); two harnesses may share a Redis one. */
  store?: Store;
}

interface Delivered {
  conversation: ConversationRef;
  reply: Reply;
}

export interface CoreHarness {
  sandbox: Sandbox;
  service: ServiceClient;
  store: Store;
  deps: CoreDeps;
  core: Core;
  logger: ReturnType<typeof createMemoryLogger>;
  clock: { now: () => number; advance(ms: number): void };
  scheduled: { job: TrackedJob; options: { delayMs: number; jobId: string } }[];
  notifications: (Delivered & { dedupKey?: string })[];
  delivered: Delivered[];
  /** Runs a command line as `actor` typed it in `conversation` (default the test channel). */
  run(actor: Actor, line: string, conversation?: ConversationRef): Promise<Reply>;
  /** Presses the button with `token` as `actor`. */
  click(actor: Actor, token: string, conversation?: ConversationRef): Promise<Reply>;
  /** Resolves once `check` is true; fails after `timeoutMs` (default 5 s) naming `what`. */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolves once no tracked or notify job is waiting, running or delayed. */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The plain text of every block of a reply, one line per block (fields as `label: value`). */
export function replyText(reply: Reply): string {
  return reply.blocks.map(blockText).join("\n");
}

function blockText(block: Block): string {
  switch (block.type) {
    case "header":
      return block.text;
    case "text":
    case "context":
      return spansToText(block.spans);
    case "fields":
      return block.fields.map((f) => `${f.label}: ${spansToText(f.value)}`).join("\n");
    case "buttons":
      return block.buttons.map((b) => `[${b.label}]`).join(" ");
    case "file":
      return `(file ${block.file.filename})`;
    case "image":
      return `(image ${block.image.filename}: ${block.image.summary})`;
    case "divider":
      return "---";
  }
}

/** What was scheduled besides the recovery job every durable click schedules before its claim. */
export const trackedWork = (h: Pick<CoreHarness, "scheduled">): CoreHarness["scheduled"] =>
  h.scheduled.filter((s) => s.job.kind !== "recover-intent");

/** Every button of a reply, in order. */
export const replyButtons = (reply: Reply): Button[] =>
  reply.blocks.flatMap((b) => (b.type === "buttons" ? b.buttons : []));

function recordingAdapters(delivered: Delivered[]): Map<Platform, ChatAdapter> {
  const adapters = new Map<Platform, ChatAdapter>();
  for (const platform of ["slack", "telegram", "console"] as const) {
    adapters.set(platform, {
      platform,
      async send(conversation, reply) {
        delivered.push({ conversation, reply });
        return { messageId: String(delivered.length) };
      },
    });
  }
  return adapters;
}

async function createCoreHarness(options: CoreHarnessOptions = {}): Promise<CoreHarness> {
  let offset = 0;
  const clock = {
    now: () => Date.now() + offset,
    advance: (ms: number) => {
      offset += ms;
    },
  };
  const store = options.store ?? createMemoryStore({ now: clock.now });
  const scheduled: CoreHarness["scheduled"] = [];
  const notifications: CoreHarness["notifications"] = [];
  const delivered: Delivered[] = [];
  const kit = await startBotKit({
    ...(options.sandbox && { sandboxOptions: options.sandbox }),
    ...(options.client && { client: options.client }),
    store,
    now: clock.now,
    settings: withSettings(baseSettings, options.settings),
    ...(options.registry && { registry: options.registry }),
    ...(options.tracked && { tracked: options.tracked }),
    ...(options.timeScale !== undefined && { timeScale: options.timeScale }),
    jobs: (scheduler): JobScheduler => ({
      async schedule(job, opts) {
        scheduled.push({ job, options: opts });
        await scheduler.schedule(job, opts);
      },
      cancel: (jobId) => scheduler.cancel?.(jobId) ?? Promise.resolve(),
    }),
    notifier: (real): Notifier => ({
      async post(conversation, reply, dedupKey) {
        notifications.push({ conversation, reply, ...(dedupKey !== undefined && { dedupKey }) });
        await real.post(conversation, reply, dedupKey);
      },
    }),
  });
  await kit.startWorkers(recordingAdapters(delivered));
  const { core } = kit;

  return {
    sandbox: kit.sandbox,
    service: kit.service,
    store,
    deps: kit.deps,
    core,
    logger: kit.logger,
    clock,
    scheduled,
    notifications,
    delivered,
    run: (actor, line, conversation = channel) =>
      core.handle({ kind: "command", actor, conversation, text: line }),
    click: (actor, token, conversation = channel) =>
      core.handle({ kind: "action", actor, conversation, token }),
    waitFor: async (check, what, timeoutMs) => {
      await waitFor(check, what, timeoutMs);
    },
    settle: (timeoutMs) => kit.settle(timeoutMs, { delayedTracked: true }),
    async close() {
      await kit.close();
      await store.close();
    },
  };
}

/**
 * Harnesses closed after each test: `const harness = useCoreHarness({ …defaults })` at the top of
 * a file, then `const h = await harness.setup({ …options for this test })` inside a test.
 */
export function useCoreHarness(defaults: CoreHarnessOptions = {}) {
  const open: CoreHarness[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  return {
    async setup(options: CoreHarnessOptions = {}): Promise<CoreHarness> {
      const harness = await createCoreHarness({ ...defaults, ...options });
      open.push(harness);
      return harness;
    },
  };
}

/**
 * A dispatcher that gives up on a request whose response headers take longer than `ms`, as
 * undici's own headers timeout would: `client: { dispatcher: headersTimeoutDispatcher(150) }`
 * plus `sandbox.inject(label, { kind: "delay", ms: 400 })` gives a timeout in test time. (The
 * client's own timeouts are seconds long, and undici runs timeouts above 1 s on a coarse timer.)
 */
export function headersTimeoutDispatcher(ms: number): Dispatcher {
  const agent = new Agent();
  const dispatch = agent.dispatch.bind(agent);
  agent.dispatch = (options, handler) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearTimeout(timer);
    const wrapped = new Proxy(handler, {
      get(target, property) {
        const t = target as Record<PropertyKey, (...args: unknown[]) => unknown>;
        if (property === "onConnect") {
          return (abort: (error: Error) => void, context: unknown) => {
            timer = setTimeout(() => abort(new errors.HeadersTimeoutError()), ms);
            return t.onConnect?.call(target, abort, context);
          };
        }
        if (property === "onHeaders" || property === "onError") {
          return (...args: unknown[]) => {
            stop();
            return t[property]?.apply(target, args);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return dispatch(options, wrapped);
  };
  return agent;
}

/**
 * Moves the harness clock forward to 00:00 UTC on the 2nd of the next month, so a test that walks
 * a few days stays within one calendar month (monthly budgets reset on the 1st) whatever today is.
 */
export function advanceToEarlyMonth(clock: CoreHarness["clock"]): void {
  const now = new Date(clock.now());
  clock.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2) - now.getTime());
}
