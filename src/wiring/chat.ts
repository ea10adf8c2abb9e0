import { userInfo } from "node:os";
import type { Readable, Writable } from "node:stream";
import { createConsoleAdapter } from "../../adapters/console/index.js";
import { createSlackAdapter } from "../../adapters/slack/index.js";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import type { Config } from "../config.js";
import type {
  Actor,
  ChatAdapter,
  ChatAdapterLifecycle,
  ConversationRef,
  Core,
  CoreDeps,
  Platform,
} from "../core/index.js";
import { commands, homeSummary } from "../core/index.js";
import type { Health } from "../http/health.js";
import type { HttpRoute } from "../http/server.js";
import type { Logger } from "../log.js";
import type { Shutdown } from "./shutdown.js";

/**
 * The chat adapters the configuration turns on: Slack, Telegram, or (neither) the console. Each
 * mounts its route on the one server before it starts (Telegram's setWebhook may bring an update
 * at once), reports its readiness to /healthz, and finishes its work in flight when stopping.
 */
export const CONSOLE_CONVERSATION: ConversationRef = { platform: "console", id: "console" };

export interface ChatOptions {
  config: Config;
  core: Core;
  deps: CoreDeps;
  logger: Logger;
  routes: HttpRoute[];
  health: Health;
  shutdown: Shutdown;
  stdin?: Readable;
  stdout?: Writable;
}

export interface Chat {
  adapters: ReadonlyMap<Platform, ChatAdapter>;
  /** Resolves when the console's input has ended; only when the console runs. */
  consoleFinished?: Promise<void>;
}

/** The console runs when no chat platform is configured: the demo. */
export const consoleEnabled = (config: Config): boolean => !config.slack && !config.telegram;

/** Whoever holds the local terminal holds the process. */
export function consoleActor(): Actor {
  return { platform: "console", userId: safeUserName() };
}

/** What the wiring holds of an adapter: the send port, the lifecycle, and its route if it has one. */
type MountedAdapter = ChatAdapter & ChatAdapterLifecycle & { readonly route?: HttpRoute };

export async function startChat(options: ChatOptions): Promise<Chat> {
  const { routes, health, shutdown } = options;
  const adapters = new Map<Platform, ChatAdapter>();
  let consoleFinished: Promise<void> | undefined;
  const factories = adapterFactories(options, (finished) => {
    consoleFinished = finished;
  });
  // One after another, each created, mounted and watched before it starts.
  for (const create of factories) {
    const adapter = create();
    adapters.set(adapter.platform, adapter);
    if (adapter.route) routes.push(adapter.route);
    health.add({ name: adapter.platform, ready: () => adapter.ready() });
    shutdown.add("finish", adapter.platform, (timeoutMs) => adapter.close(timeoutMs));
    await adapter.start();
  }
  return { adapters, ...(consoleFinished && { consoleFinished }) };
}

/** The adapters the configuration turns on, in start order: console, Telegram, Slack. */
function adapterFactories(
  options: ChatOptions,
  onConsole: (finished: Promise<void>) => void,
): (() => MountedAdapter)[] {
  const { config, core, deps, logger } = options;
  const factories: (() => MountedAdapter)[] = [];
  if (consoleEnabled(config)) {
    factories.push(() => {
      const adapter = createConsoleAdapter({
        input: options.stdin ?? process.stdin,
        output: options.stdout ?? process.stdout,
        core,
        actor: consoleActor(),
        conversation: CONSOLE_CONVERSATION,
      });
      onConsole(adapter.finished);
      return adapter;
    });
  }
  const { telegram, slack } = config;
  if (telegram) {
    factories.push(() =>
      createTelegramAdapter({
        config: telegram,
        publicUrl: config.publicUrl,
        core,
        store: deps.store,
        logger,
        notifier: deps.notifier,
      }),
    );
  }
  if (slack) {
    factories.push(() =>
      createSlackAdapter({
        config: slack,
        core,
        store: deps.store,
        logger,
        homeReply: (actor) => homeSummary(deps, { actor, commands }),
        fallback: (conversation, reply) => deps.notifier.post(conversation, reply),
        ...(deps.settings.userGroups && {
          userGroups: {
            directory: deps.settings.userGroups,
            lists: {
              OPS_ADMINS: deps.settings.admins,
              OPS_OPERATORS: deps.settings.operators,
            },
          },
        }),
      }),
    );
  }
  return factories;
}

function safeUserName(): string {
  try {
    return userInfo().username || "operator";
  } catch {
    return "operator";
  }
}
