import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import type { Notification } from "./events.js";

/**
 * What the bot is about to cause. A notification whose origin (order id, Host Mode address) is not
 * recorded yet goes to the alert destination at once, unless it matches an expectation: then the
 * order's reply is probably still on its way back, so the router waits a moment for the origin,
 * and without one posts to the expecting conversation (the bookkeeping after the spend failed).
 *
 * Recorded just before a spend is sent, with what its notifications will carry: the receive
 * address (`receive_address` of deliveries, `address` of activations), the Host Mode address (the
 * callbacks' `address`), the bot's own request id (an activation's `source`, a report's
 * `client_request_id`). Short-lived: the origin record takes over within seconds.
 */
export type ExpectedSpend =
  | { kind: "order5m"; address: string }
  | { kind: "orchestrator"; address: string; idempotencyKey: string }
  | { kind: "host"; address: string };

type Field = "address" | "host" | "request";

interface Policy {
  ttlMs: number;
  /** Cleared by the first matching notification whose origin is recorded (one order, one origin). */
  once: boolean;
}

/**
 * A 5-minute order delivers in seconds; Host Mode's origin is recorded as soon as it started.
 * An orchestrator order delivers chunk by chunk while its poll records each chunk's id (polls up
 * to a minute apart): it keeps its expectation until its final poll clears it, or for an hour.
 */
export const EXPECTATION_POLICY: Record<ExpectedSpend["kind"], Policy> = {
  order5m: { ttlMs: 10 * 60_000, once: true },
  host: { ttlMs: 10 * 60_000, once: true },
  orchestrator: { ttlMs: 60 * 60_000, once: false },
};

const recordSchema = z.object({
  conversation: z.object({
    platform: z.enum(["slack", "telegram", "console"]),
    id: z.string(),
    threadId: z.string().optional(),
  }),
  once: z.boolean(),
});
type ExpectationRecord = z.infer<typeof recordSchema>;

const keyOf = (field: Field, value: string): string => `expect:${field}:${value}`;

function keysOfSpend(spend: ExpectedSpend): string[] {
  switch (spend.kind) {
    case "order5m":
      return [keyOf("address", spend.address)];
    case "orchestrator":
      return [keyOf("address", spend.address), keyOf("request", spend.idempotencyKey)];
    case "host":
      return [keyOf("host", spend.address)];
  }
}

/** The keys a notification may match, in the order they are tried. */
function keysOfNotification(n: Notification): string[] {
  switch (n.event) {
    case "delegation.confirmed":
    case "bandwidth.delegated":
      return n.receive_address ? [keyOf("address", n.receive_address)] : [];
    case "activation.confirmed":
      return [
        ...(n.address ? [keyOf("address", n.address)] : []),
        ...(n.source ? [keyOf("request", n.source)] : []),
      ];
    case "report.ready":
      return n.client_request_id ? [keyOf("request", n.client_request_id)] : [];
    case "host.cycle":
    case "host_paused":
      return [keyOf("host", n.address)];
  }
}

/**
 * Records that `conversation` is about to place `spend`. Called once, before the spend is sent.
 * A failure here only costs a possible alert instead of a message in the conversation, so it
 * never stops the spend.
 */
export async function expectNotifications(
  deps: Pick<CoreDeps, "store" | "logger">,
  conversation: ConversationRef,
  spend: ExpectedSpend,
): Promise<void> {
  const policy = EXPECTATION_POLICY[spend.kind];
  const record: ExpectationRecord = { conversation, once: policy.once };
  try {
    for (const key of keysOfSpend(spend)) await setJson(deps.store, key, record, policy.ttlMs);
  } catch (error) {
    deps.logger.warn({ err: error, kind: spend.kind }, "could not record what a spend will notify");
  }
}

/** The expectation a notification matches, or null: then nobody here is waiting for it. */
export async function findExpectation(store: Store, n: Notification): Promise<ConversationRef | null> {
  for (const key of keysOfNotification(n)) {
    const record = await getJson(store, key, recordSchema);
    if (record !== null) return record.conversation;
  }
  return null;
}

/** The notification's origin is recorded: the expectations it matched for one order did their job. */
export async function settleExpectations(store: Store, n: Notification): Promise<void> {
  for (const key of keysOfNotification(n)) {
    const record = await getJson(store, key, recordSchema);
    if (record?.once) await store.del(key);
  }
}

/** An orchestrator order is final: its chunks' notifications all have their origins. */
export async function forgetOrchestratorExpectation(
  store: Store,
  order: { address: string; idempotencyKey: string },
): Promise<void> {
  for (const key of keysOfSpend({ kind: "orchestrator", ...order })) await store.del(key);
}
