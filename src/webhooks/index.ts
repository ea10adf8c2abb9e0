import type { ConversationRef, CoreDeps, WebhookFamily } from "../core/index.js";
import { createNotificationRouter, registerWebhooks } from "../core/index.js";
import type { HttpRoute } from "../http/server.js";
import type { JobQueue, JobWorker } from "../jobs/queue.js";
import { createHostCallbackHandler } from "./host-callback-route.js";
import { createInbox, createIngestReporter, type IngestObserver } from "./inbox.js";
import { createSecretSource } from "./secret-source.js";
import { createServiceWebhookHandler } from "./service-webhook-route.js";
import { startInboundWorker } from "./worker.js";

export { type IngestObserver, WEBHOOK_QUEUE } from "./inbox.js";

/**
 * Everything inbound from the service, wired once: the two signed webhook routes, the Host Mode
 * callback route, and the worker that routes stored deliveries into chat.
 */
export interface WebhooksOptions {
  deps: CoreDeps;
  queues: JobQueue;
  /** ORDER_WEBHOOK_SECRETS / REPORT_WEBHOOK_SECRETS; secrets registered from chat come from the store. */
  secrets: Readonly<Record<WebhookFamily, readonly string[]>>;
  /** Where notifications without a known conversation go (`alertConversations` of src/wiring/platforms.ts). */
  alerts: readonly ConversationRef[];
  /** Waits for a missing origin before the alert channel (default: the router's, ~2 minutes). */
  originGraceMs?: readonly number[];
  concurrency?: number;
  /** Metrics: every inbound request, by route and result (accepted, duplicate, rejected, …). */
  observe?: IngestObserver;
}

export interface Webhooks {
  routes: HttpRoute[];
  worker: JobWorker;
}

export async function startWebhooks(options: WebhooksOptions): Promise<Webhooks> {
  const { deps, queues } = options;
  const common = {
    inbox: createInbox(queues),
    logger: deps.logger,
    now: deps.now,
    ...(options.observe && { report: createIngestReporter(deps.store, options.observe) }),
  };
  const secrets = createSecretSource({
    store: deps.store,
    configured: options.secrets,
    logger: deps.logger,
    now: deps.now,
  });
  const router = createNotificationRouter(deps, {
    alerts: options.alerts,
    ...(options.originGraceMs && { originGraceMs: options.originGraceMs }),
  });
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
  const worker = await startInboundWorker(queues, router, {
    logger: deps.logger,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
  });
  return { routes, worker };
}

/**
 * The demo registers its receivers in the built-in sandbox at start, so the console shows delivery
 * notifications with no set-up. Idempotent (the registries are read first); a failure is logged
 * and the demo runs on without notifications.
 */
export async function registerDemoWebhooks(deps: CoreDeps): Promise<void> {
  try {
    const outcomes = await registerWebhooks(deps);
    const failed = outcomes.filter((o) => o.status === "failed" || o.status === "full");
    if (failed.length > 0) {
      deps.logger.warn({ families: failed.map((o) => o.family) }, "demo webhook registration incomplete");
    }
  } catch (error) {
    deps.logger.warn({ err: error }, "demo webhook registration failed; delivery notifications are off");
  }
}
