import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { within } from "./clock.js";
import type { CoreObserver, Platform } from "./core/index.js";
import { sunToTrx } from "./core/index.js";
import type { JobCounts } from "./jobs/queue.js";
import type { CallSpec } from "./service/transport.js";
import type { IngestObserver } from "./webhooks/index.js";

/**
 * Prometheus metrics (prom-client). One registry per app instance, so tests that start several
 * bots in one process do not share counters. The parts of the bot never see prom-client: each
 * gets a plain observer function from `metricsObservers`.
 */
export interface MetricsOptions {
  /** Longest a scrape waits for the queue depths; Redis down: the gauge is left empty, the scrape answers. */
  collectTimeoutMs?: number;
}

type QueueDepthSource = () => Promise<Record<string, JobCounts>>;

const DEFAULT_COLLECT_TIMEOUT_MS = 1_000;

export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "opsbot_" });
  // Integer SUN per platform: money is summed exactly and only shown as TRX at the scrape.
  const spentSun = new Map<string, number>();
  let depthSource: QueueDepthSource | undefined;

  const commands = new Counter({
    name: "opsbot_commands_total",
    help: "Chat commands and button clicks handled, by kind, verb (or action kind) and outcome",
    labelNames: ["kind", "verb", "outcome"] as const,
    registers: [registry],
  });
  const serviceCalls = new Histogram({
    name: "opsbot_service_call_seconds",
    help: "Calls to the service by endpoint and HTTP status (error: no answer)",
    labelNames: ["endpoint", "status"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  });
  const webhooks = new Counter({
    name: "opsbot_webhook_deliveries_total",
    help: "Inbound service webhooks (orders, reports) and Host Mode callbacks (host), by route and result",
    labelNames: ["route", "result"] as const,
    registers: [registry],
  });
  const chatSendFailures = new Counter({
    name: "opsbot_chat_send_failures_total",
    help: "Failed sends of notifications to a chat platform (each is retried by the notify queue)",
    labelNames: ["platform"] as const,
    registers: [registry],
  });
  const spendTrx = new Counter({
    name: "opsbot_spend_trx_total",
    help: "TRX charged for orders, by the platform of the user who placed them",
    labelNames: ["platform"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [platform, sun] of spentSun) this.inc({ platform }, Number(sunToTrx(sun)));
    },
  });
  const timeoutMs = options.collectTimeoutMs ?? DEFAULT_COLLECT_TIMEOUT_MS;
  const queueDepth = new Gauge({
    name: "opsbot_queue_jobs",
    help: "Jobs per queue and state, read at the scrape",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const depths = depthSource && (await withinMs(depthSource(), timeoutMs));
      for (const [queue, counts] of Object.entries(depths ?? {})) {
        for (const [state, n] of Object.entries(counts)) this.set({ queue, state }, n);
      }
    },
  });

  return {
    registry,
    commands,
    serviceCalls,
    webhooks,
    chatSendFailures,
    spendTrx,
    queueDepth,
    /** Where the queue gauge reads the depth of each queue by state, at every scrape. */
    readQueueDepths(source: QueueDepthSource): void {
      depthSource = source;
    },
    addSpend(platform: string, sun: number): void {
      spentSun.set(platform, (spentSun.get(platform) ?? 0) + sun);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export interface MetricsObservers {
  core: CoreObserver;
  serviceReply: (spec: CallSpec, status: number | "error", durationMs: number) => void;
  ingest: IngestObserver;
  chatSendFailure: (platform: Platform) => void;
}

/** The plain functions each part of the bot is given. */
export function metricsObservers(metrics: Metrics): MetricsObservers {
  return {
    core: {
      handled: ({ kind, verb, outcome }) => metrics.commands.inc({ kind, verb, outcome }),
      spent: ({ actor, sun }) => metrics.addSpend(actor.split(":")[0] ?? "unknown", sun),
    },
    serviceReply: (spec, status, durationMs) =>
      metrics.serviceCalls.observe({ endpoint: spec.endpoint, status: String(status) }, durationMs / 1000),
    ingest: ({ route, result }) => metrics.webhooks.inc({ route, result }),
    chatSendFailure: (platform) => metrics.chatSendFailures.inc({ platform }),
  };
}

/** The value, or undefined when it failed or took longer than `ms`. */
const withinMs = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  within(
    promise.catch(() => undefined),
    ms,
  );
