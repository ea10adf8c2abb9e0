import { randomBytes } from "node:crypto";
import type { WebhookFamily } from "../../src/core/service-events/events.js";
import { storedWebhookSecrets } from "../../src/core/setup/webhook-secrets.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";
import type { Store } from "../../src/store/store.js";
import { signServiceWebhook } from "../../src/webhooks/service-signature.js";
import { PUBLIC_URL } from "./bot.js";

/** A sandbox whose webhooks and callbacks for PUBLIC_URL reach the bot at `origin`, with small delays. */
export function sandboxFor(extra: SandboxOptions = {}) {
  return (origin: string): Promise<Sandbox> =>
    createSandbox({
      enforceRateLimits: false,
      ...extra,
      energy: {
        order5mLatencyMs: 5,
        webhookDelayMs: 10,
        hostFirstCycleMs: 20,
        orchestratorStepMs: 5,
        ...extra.energy,
      },
      account: { reports: { buildMs: 30 }, ...extra.account },
      outbound: {
        originMap: { [PUBLIC_URL]: origin },
        retryScheduleMs: [50, 100, 200],
        callbackRetryMs: [50, 100],
        ...extra.outbound,
      },
    });
}

/** The secret the bot registered for a family (read from its store, as a replaying attacker could not). */
export async function registeredSecret(store: Store, family: WebhookFamily): Promise<string> {
  const [first] = await storedWebhookSecrets(store, family);
  if (!first) throw new Error(`no ${family} secret registered`);
  return first.secret;
}

export interface SignedPost {
  secret: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  /** Raw body; default JSON of `body`. */
  raw?: string;
  signature?: string;
}

/** POSTs a body to the bot's webhook route, signed the way the service signs. */
export async function postSigned(
  origin: string,
  family: WebhookFamily,
  body: unknown,
  options: SignedPost,
): Promise<{ status: number; text: string }> {
  const raw = options.raw ?? JSON.stringify(body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const response = await fetch(`${origin}/webhooks/${family}`, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-service-timestamp": String(timestamp),
      "x-service-signature": options.signature ?? signServiceWebhook(options.secret, timestamp, raw),
      "user-agent": "service-webhook/1.0",
    },
    body: raw,
  });
  return { status: response.status, text: await response.text() };
}

export const randomKey = (): string => randomBytes(32).toString("hex");

/** A delegation.confirmed as the spec describes it. */
export function delegationEvent(deliveryId: number, orderId: string, address: string) {
  const hash = randomBytes(32).toString("hex");
  return {
    event: "delegation.confirmed",
    delivery_id: deliveryId,
    order_id: orderId,
    order_type: "5m",
    receive_address: address,
    energy_amount: 65_050,
    tx_hashes: [hash],
    tx_hash: hash,
    confirmed_at: new Date().toISOString(),
  };
}
