import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * Prometheus metrics (prom-client). One registry per app instance, so tests that start several
 * bots in one process do not share counters.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "opsbot_" });

  const commands = new Counter({
    name: "opsbot_commands_total",
    help: "Chat commands and button clicks handled, by verb and outcome",
    labelNames: ["verb", "outcome"] as const,
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
    help: "Inbound service webhooks and Host Mode callbacks, by route and result",
    labelNames: ["route", "result"] as const,
    registers: [registry],
  });
  const chatSendFailures = new Counter({
    name: "opsbot_chat_send_failures_total",
    help: "Failed sends to a chat platform (each is retried by the notify queue)",
    labelNames: ["platform"] as const,
    registers: [registry],
  });
  const spendTrx = new Counter({
    name: "opsbot_spend_trx_total",
    help: "TRX paid for confirmed orders",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: "opsbot_queue_jobs",
    help: "Jobs per queue and state",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
  });

  return { registry, commands, serviceCalls, webhooks, chatSendFailures, spendTrx, queueDepth };
}

export type Metrics = ReturnType<typeof createMetrics>;
