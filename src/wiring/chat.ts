import type { Readable, Writable } from "node:stream";
import type { Config } from "../config/load-config.js";
import type { ChatAdapter, Core, CoreDeps, Platform } from "../core/index.js";
import type { Health } from "../http/health.js";
import type { HttpRoute } from "../http/server.js";
import type { Logger } from "../log.js";
import { platformsOn } from "./platforms.js";
import type { Shutdown } from "./shutdown.js";

/**
 * The chat adapters the configuration turns on (`platformsOn`: the configured platforms, or the
 * console). Each mounts its route on the one server before it starts (Telegram's setWebhook may
 * bring an update at once), reports its readiness to /healthz, and finishes its work in flight
 * when stopping.
 */
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
  inputFinished?: Promise<void>;
}

export async function startChat(options: ChatOptions): Promise<Chat> {
  const { routes, health, shutdown } = options;
  const adapters = new Map<Platform, ChatAdapter>();
  let inputFinished: Promise<void> | undefined;
  // One after another, each created, mounted and watched before it starts.
  for (const platform of platformsOn(options.config)) {
    const adapter = platform.create(options);
    if (adapter.finished) inputFinished = adapter.finished;
    adapters.set(adapter.platform, adapter);
    if (adapter.route) routes.push(adapter.route);
    if (adapter.routes) routes.push(...adapter.routes);
    health.add({ name: adapter.platform, ready: () => adapter.ready() });
    shutdown.add("finish", adapter.platform, (timeoutMs) => adapter.close(timeoutMs));
    await adapter.start();
  }
  return { adapters, ...(inputFinished && { inputFinished }) };
}
