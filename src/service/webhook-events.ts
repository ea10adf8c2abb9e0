import { z } from "zod";

/**
 * What the service sends back to the bot, as the spec's "Events" section describes it: order
 * webhooks, report webhooks and Host Mode callbacks. Only what routing needs is required; every
 * other field is optional so a renderer shows what came and a field the service drops or adds
 * never loses a notification ("clients ignore fields they do not know").
 */
export type WebhookFamily = "orders" | "reports";
/** Where a notification came from: a signed webhook family, or a Host Mode callback. */
export type NotificationSource = WebhookFamily | "host";

/** A mainnet TRON address as text (base58, 34 characters, starting with T). */
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/*
 * No length limit on a field: a signed, well-formed delivery is stored and acknowledged whatever
 * its sizes (the body is capped at MAX_WEBHOOK_BODY_BYTES), and the renderers cut what they show.
 * Refusing it would lose the notification for good: the service's retries get the same answer.
 */
const idText = z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String);
const deliveryIdSchema = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)])
  .transform(String);
const hashes = z
  .array(z.string())
  .default([])
  .transform((list) => list.filter((hash) => hash !== ""));
const optionalText = z.string().optional();
const optionalCount = z.number().int().nonnegative().optional();

const common = {
  delivery_id: deliveryIdSchema,
  order_id: idText,
  order_type: optionalText,
  tx_hashes: hashes,
  confirmed_at: optionalText,
};

/** What every signed webhook carries, read before its event's own schema. */
export const webhookEnvelopeSchema = z.object({
  event: z.string().min(1).max(200),
  delivery_id: deliveryIdSchema,
});

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

/**
 * A Host Mode delegation cycle: GET with the spec's query parameters (no `event`); read as the
 * event `host.cycle`.
 */
export const hostCycleSchema = z
  .object({
    address: z.string().regex(TRON_ADDRESS),
    order_id: z.string().min(1).max(200),
    hash: z.string().min(1).max(200),
    balance_after: decimal.optional(),
    idle_cycle: z.enum(["0", "1"]).optional(),
    energy_used: z.string().max(20).optional(),
    charged: decimal.optional(),
  })
  .transform((cycle) => ({ ...cycle, event: "host.cycle" as const }));

/** Our own format (not in the spec): `event=host_paused&address=…&reason=stopped&timestamp=…`. */
export const hostPausedSchema = z.object({
  event: z.literal("host_paused"),
  address: z.string().regex(TRON_ADDRESS),
  reason: z.string().max(200).optional(),
  /** Required: with the address it is the identity of the pause (the callback is retried as is). */
  timestamp: z.string().min(1).max(100),
});

export type DelegationConfirmed = z.output<typeof delegationConfirmedSchema>;
export type BandwidthDelegated = z.output<typeof bandwidthDelegatedSchema>;
export type ActivationConfirmed = z.output<typeof activationConfirmedSchema>;
export type ReportReady = z.output<typeof reportReadySchema>;
export type HostCycle = z.output<typeof hostCycleSchema>;
export type HostPaused = z.output<typeof hostPausedSchema>;
type ServiceEvent = DelegationConfirmed | BandwidthDelegated | ActivationConfirmed | ReportReady;
export type Notification = ServiceEvent | HostCycle | HostPaused;
export type NotificationEvent = Notification["event"];
export type NotificationOf<E extends NotificationEvent> = Extract<Notification, { event: E }>;
