import type { Config } from "../config/load-config.js";
import type { ChatAdapter, CoreDeps, Platform } from "../core/index.js";
import {
  actionHandlers,
  alertDigestBlocks,
  alertPosted,
  createTrackedHandlers,
  recoverOpenIntents,
} from "../core/index.js";
import type { HttpRoute } from "../http/server.js";
import type { JobQueue } from "../jobs/queue.js";
import { startTrackedWorker } from "../jobs/scheduler.js";
import type { MetricsObservers } from "../metrics.js";
import { startNotifyWorker } from "../outbox/outbox.js";
import { startWebhooks } from "../webhooks/index.js";
import { alertConversations } from "./platforms.js";
import { startScheduledJobs } from "./scheduled-jobs.js";
import type { Shutdown } from "./shutdown.js";

/**
 * The job workers (tracked polls, chat notifications, stored webhooks) and the inbound routes of
 * the service (webhooks, Host Mode callbacks). The workers share the queues with every instance;
 * each stops taking jobs and finishes the ones running in the `workers` phase of stop.
 */
export interface WorkerOptions {
  config: Config;
  deps: CoreDeps;
  queues: JobQueue;
  adapters: ReadonlyMap<Platform, ChatAdapter>;
  observe: MetricsObservers;
  shutdown: Shutdown;
}

/** Starts the workers; returns the webhook and callback routes to mount. */
export async function startWorkers(options: WorkerOptions): Promise<HttpRoute[]> {
  const { config, deps, queues, observe, shutdown } = options;
  const { logger } = deps;
  const tracked = await startTrackedWorker(queues, createTrackedHandlers(deps, actionHandlers), { logger });
  shutdown.add("workers", "tracked jobs", () => tracked.close());
  // Confirmations a stopped instance left open are recovered now, not when their delayed job is due.
  await recoverOpenIntents(deps).catch((error: unknown) =>
    logger.warn({ err: error }, "could not look for confirmations left open at start"),
  );
  const notify = await startNotifyWorker(queues, {
    adapters: options.adapters,
    platforms: deps.platforms,
    store: deps.store,
    logger,
    onSendFailure: observe.chatSendFailure,
    onPosted: (conversation, reply, messageId) => alertPosted(deps, conversation, reply, messageId),
    digestExtras: (conversation, replies) => alertDigestBlocks(deps, conversation, replies),
  });
  shutdown.add("workers", "notifications", () => notify.close());
  const alerts = alertConversations(config);
  await startScheduledJobs({ deps, queues, alerts, shutdown });
  const webhooks = await startWebhooks({
    deps,
    queues,
    secrets: config.webhookSecrets,
    alerts,
    observe: observe.ingest,
  });
  shutdown.add("workers", "webhook deliveries", () => webhooks.worker.close());
  return webhooks.routes;
}
