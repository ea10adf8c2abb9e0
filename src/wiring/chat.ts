import { userInfo } from "node:os";
import type { Readable, Writable } from "node:stream";
import { createConsoleAdapter } from "../../adapters/console/index.js";
import { createSlackAdapter } from "../../adapters/slack/index.js";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import type { Config } from "../config.js";
import { commands } from "../core/commands/index.js";
import type { Core } from "../core/core.js";
import type { CoreDeps } from "../core/deps.js";
import { homeSummary } from "../core/home.js";
import type { Actor, ConversationRef, Platform } from "../core/invocation.js";
import type { ChatAdapter } from "../core/ports.js";
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

export async function startChat(options: ChatOptions): Promise<Chat> {
  const { config, core, deps, logger, routes, health, shutdown } = options;
  const adapters = new Map<Platform, ChatAdapter>();
  let consoleFinished: Promise<void> | undefined;
  if (consoleEnabled(config)) {
    const adapter = createConsoleAdapter({
      input: options.stdin ?? process.stdin,
      output: options.stdout ?? process.stdout,
      core,
      actor: consoleActor(),
      conversation: CONSOLE_CONVERSATION,
    });
    adapters.set("console", adapter);
    consoleFinished = adapter.finished;
    health.add({ name: "console", ready: () => true });
    shutdown.add("finish", "console", () => adapter.close());
  }
  if (config.telegram) {
    const telegram = createTelegramAdapter({
      config: config.telegram,
      publicUrl: config.publicUrl,
      core,
      store: deps.store,
      logger,
      notifier: deps.notifier,
    });
    adapters.set("telegram", telegram);
    if (telegram.route) routes.push(telegram.route);
    health.add({ name: "telegram", ready: () => telegram.ready() });
    shutdown.add("finish", "telegram", () => telegram.stop());
    await telegram.start();
  }
  if (config.slack) {
    const slack = createSlackAdapter({
      config: config.slack,
      core,
      store: deps.store,
      logger,
      homeReply: (actor) => homeSummary(deps, { actor, commands }),
      fallback: (conversation, reply) => deps.notifier.post(conversation, reply),
    });
    adapters.set("slack", slack);
    if (slack.route) routes.push(slack.route);
    health.add({ name: "slack", ready: () => slack.ready() });
    shutdown.add("finish", "slack", (timeoutMs) => slack.close(timeoutMs));
    await slack.start();
  }
  return { adapters, ...(consoleFinished && { consoleFinished }) };
}

function safeUserName(): string {
  try {
    return userInfo().username || "operator";
  } catch {
    return "operator";
  }
}
