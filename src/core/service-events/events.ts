import type { z } from "zod";
import {
  type Notification,
  type NotificationSource,
  type WebhookFamily,
  webhookEnvelopeSchema,
} from "../../service/webhook-events.js";
import { definitionOf, definitionOnWire } from "./registry.js";

export type { Notification, NotificationSource, WebhookFamily };

/**
 * Reading what the service sends back (order and report webhooks, Host Mode callbacks) with the
 * definitions of the registry: the schema of the event named in the payload, and its identity.
 */
export type ParsedDelivery =
  | { kind: "event"; event: Notification }
  | { kind: "unknown"; eventName: string; deliveryId: string }
  | { kind: "malformed"; reason: string };

/** A verified webhook body (already JSON-parsed) → a known event, an unknown one, or why it is unreadable. */
export function parseServiceEvent(family: WebhookFamily, body: unknown): ParsedDelivery {
  // One schema, not two, for the usual delivery: every webhook event's schema carries the
  // envelope's rules (its `event` a literal, `delivery_id` the same rule), so a body it accepts
  // passes the envelope too. Anything else goes the long way, for the same answer and reason.
  const named = (body as { event?: unknown } | null)?.event;
  const known = typeof named === "string" ? definitionOnWire(family, named) : undefined;
  const direct = known?.schema.safeParse(body);
  if (direct?.success) return { kind: "event", event: direct.data };
  const envelope = webhookEnvelopeSchema.safeParse(body);
  if (!envelope.success) return malformed(envelope.error);
  const definition = definitionOnWire(family, envelope.data.event);
  if (!definition) {
    return { kind: "unknown", eventName: envelope.data.event, deliveryId: envelope.data.delivery_id };
  }
  const event = definition.schema.safeParse(body);
  return event.success ? { kind: "event", event: event.data } : malformed(event.error);
}

export type ParsedCallback =
  | { kind: "event"; event: Notification }
  | { kind: "unknown"; eventName: string }
  | { kind: "malformed"; reason: string };

/** A Host Mode callback's query → a cycle, a pause, an unknown event, or why it is unreadable. */
export function parseHostCallback(query: Record<string, string>): ParsedCallback {
  const name = query.event;
  const definition = definitionOnWire("host", name ?? null);
  if (!definition) return { kind: "unknown", eventName: (name ?? "").slice(0, 100) };
  const event = definition.schema.safeParse(query);
  return event.success ? { kind: "event", event: event.data } : malformed(event.error);
}

/** Any stored notification (a job's data) checked again: a deploy may have changed the schemas. */
export function parseNotification(source: NotificationSource, body: unknown): Notification | undefined {
  const parsed =
    source === "host" ? parseHostCallback(body as Record<string, string>) : parseServiceEvent(source, body);
  return parsed.kind === "event" ? parsed.event : undefined;
}

/**
 * The identity of a notification: the same key for every repeat of one delivery
 * (`orders:<delivery_id>`, `reports:<delivery_id>`, `host:<order_id>`, `host-paused:<address>:<timestamp>`).
 */
export function notificationKey(notification: Notification): string {
  return definitionOf(notification).key(notification);
}

const malformed = (error: z.ZodError): { kind: "malformed"; reason: string } => ({
  kind: "malformed",
  reason: issuesOf(error),
});

/** Field paths and codes only: never the values, which come from outside. */
function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.code}`)
    .join("; ");
}
