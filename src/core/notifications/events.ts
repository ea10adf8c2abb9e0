import { z } from "zod";
import { TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";

/**
 * What the service sends back to the bot, as the spec's "Events" section describes it: order
 * webhooks, report webhooks and Host Mode callbacks. Only what routing needs is required; every
 * other field is optional so a renderer shows what came and a field the service drops or adds
 * never loses a notification ("clients ignore fields they do not know").
 */
export type WebhookFamily = "orders" | "reports";

const idText = z.union([z.string().min(1).max(200), z.number().int().nonnegative()]).transform(String);
const deliveryId = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)])
  .transform(String);
const hashes = z.array(z.string().min(1).max(200)).max(500).default([]);
const optionalText = z.string().max(2_000).optional();
const optionalCount = z.number().int().nonnegative().optional();

const common = {
  delivery_id: deliveryId,
  order_id: idText,
  order_type: optionalText,
  tx_hashes: hashes,
  confirmed_at: optionalText,
};

export const delegationConfirmedSchema = z.object({
  ...common,
  event: z.literal("delegation.confirmed"),
  receive_address: optionalText,
  energy_amount: optionalCount,
  tx_hash: optionalText,
  delegation_timestamp: z.number().optional(),
});

export const bandwidthDelegatedSchema = z.object({
  ...common,
  event: z.literal("bandwidth.delegated"),
  rental_label: optionalText,
  rental_seconds: optionalCount,
  receive_address: optionalText,
  bandwidth_amount: optionalCount,
  /** delegated, trx_send or already_enough; kept as text so a new value is shown, not refused. */
  fulfillment: optionalText,
});

export const activationConfirmedSchema = z.object({
  ...common,
  event: z.literal("activation.confirmed"),
  address: optionalText,
  activation_type: optionalText,
  /** A service tag, or the id of the energy order that needed the activation. */
  source: idText.optional(),
});

export const reportReadySchema = z.object({
  ...common,
  event: z.literal("report.ready"),
  client_request_id: optionalText,
  status: optionalText,
  format: optionalText,
  download_url: optionalText.nullable(),
  expires_at: optionalText.nullable(),
  artifact: z
    .object({
      sha256: z.string().nullable().optional(),
      size_bytes: z.number().int().nonnegative().nullable().optional(),
    })
    .nullable()
    .optional(),
});

const decimal = z.string().regex(/^\d{1,15}(\.\d{1,18})?$/);

/** A Host Mode delegation cycle: GET with the spec's query parameters (no `event`). */
export const hostCycleSchema = z.object({
  address: z.string().regex(TRON_ADDRESS_PATTERN),
  order_id: z.string().min(1).max(200),
  hash: z.string().min(1).max(200),
  balance_after: decimal.optional(),
  idle_cycle: z.enum(["0", "1"]).optional(),
  energy_used: z.string().max(20).optional(),
  charged: decimal.optional(),
});

/** Our own format (not in the spec): `event=host_paused&address=…&reason=stopped&timestamp=…`. */
export const hostPausedSchema = z.object({
  event: z.literal("host_paused"),
  address: z.string().regex(TRON_ADDRESS_PATTERN),
  reason: z.string().max(200).optional(),
  /** Required: with the address it is the identity of the pause (the callback is retried as is). */
  timestamp: z.string().min(1).max(100),
});

export type DelegationConfirmed = z.output<typeof delegationConfirmedSchema>;
export type BandwidthDelegated = z.output<typeof bandwidthDelegatedSchema>;
export type ActivationConfirmed = z.output<typeof activationConfirmedSchema>;
export type ReportReady = z.output<typeof reportReadySchema>;
export type HostCycle = z.output<typeof hostCycleSchema> & { event: "host.cycle" };
export type HostPaused = z.output<typeof hostPausedSchema>;
export type ServiceEvent = DelegationConfirmed | BandwidthDelegated | ActivationConfirmed | ReportReady;
export type Notification = ServiceEvent | HostCycle | HostPaused;

/** The events each webhook family carries; any other `event` is acknowledged and ignored. */
const FAMILY_SCHEMAS: Record<WebhookFamily, Record<string, z.ZodType<ServiceEvent>>> = {
  orders: {
    "delegation.confirmed": delegationConfirmedSchema,
    "bandwidth.delegated": bandwidthDelegatedSchema,
    "activation.confirmed": activationConfirmedSchema,
  },
  reports: { "report.ready": reportReadySchema },
};

const envelopeSchema = z.object({ event: z.string().min(1).max(200), delivery_id: deliveryId });

export type ParsedDelivery =
  | { kind: "event"; event: ServiceEvent }
  | { kind: "unknown"; eventName: string; deliveryId: string }
  | { kind: "malformed"; reason: string };

/** A verified webhook body (already JSON-parsed) → a known event, an unknown one, or why it is unreadable. */
export function parseServiceEvent(family: WebhookFamily, body: unknown): ParsedDelivery {
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) return { kind: "malformed", reason: issuesOf(envelope.error) };
  const schema = FAMILY_SCHEMAS[family][envelope.data.event];
  if (!schema) {
    return { kind: "unknown", eventName: envelope.data.event, deliveryId: envelope.data.delivery_id };
  }
  const event = schema.safeParse(body);
  if (!event.success) return { kind: "malformed", reason: issuesOf(event.error) };
  return { kind: "event", event: event.data };
}

export type ParsedCallback =
  | { kind: "event"; event: HostCycle | HostPaused }
  | { kind: "unknown"; eventName: string }
  | { kind: "malformed"; reason: string };

/** A Host Mode callback's query → a cycle, a pause, an unknown event, or why it is unreadable. */
export function parseHostCallback(query: Record<string, string>): ParsedCallback {
  const name = query.event;
  if (name === "host_paused") {
    const paused = hostPausedSchema.safeParse(query);
    return paused.success ? { kind: "event", event: paused.data } : malformed(paused.error);
  }
  if (name !== undefined) return { kind: "unknown", eventName: name.slice(0, 100) };
  const cycle = hostCycleSchema.safeParse(query);
  return cycle.success
    ? { kind: "event", event: { ...cycle.data, event: "host.cycle" } }
    : malformed(cycle.error);
}

/** Any stored notification (a job's data) checked again: a deploy may have changed the schemas. */
export function parseNotification(source: WebhookFamily | "host", body: unknown): Notification | undefined {
  if (source === "host") {
    const parsed = parseHostCallback(body as Record<string, string>);
    return parsed.kind === "event" ? parsed.event : undefined;
  }
  const parsed = parseServiceEvent(source, body);
  return parsed.kind === "event" ? parsed.event : undefined;
}

/**
 * The identity of a notification: the same key for every repeat of one delivery. Service
 * webhooks: `delivery_id` (per family; it stays the same across primary and backup). Host
 * cycles: `order_id`, unique per delegation. A pause has neither: address and time.
 */
export function notificationKey(notification: Notification): string {
  switch (notification.event) {
    case "host.cycle":
      return `host:${notification.order_id}`;
    case "host_paused":
      return `host-paused:${notification.address}:${notification.timestamp}`;
    case "report.ready":
      return `reports:${notification.delivery_id}`;
    default:
      return `orders:${notification.delivery_id}`;
  }
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
