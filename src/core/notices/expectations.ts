import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationRefSchema } from "../invocation.js";

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

/** What a notification may carry that an expectation was recorded under. */
export type ExpectationField = "address" | "host" | "request";
export interface ExpectationKey {
  field: ExpectationField;
  value: string;
}

/** The keys a notification matches, leaving out the fields it did not carry. */
export function expectationKeys(...pairs: [ExpectationField, string | undefined][]): ExpectationKey[] {
  return pairs.flatMap(([field, value]) => (value === undefined || value === "" ? [] : [{ field, value }]));
}

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
const EXPECTATION_POLICY: Record<ExpectedSpend["kind"], Policy> = {
  order5m: { ttlMs: 10 * 60_000, once: true },
  host: { ttlMs: 10 * 60_000, once: true },
  orchestrator: { ttlMs: 60 * 60_000, once: false },
};

const recordSchema = z.object({
  conversation: conversationRefSchema,
  once: z.boolean(),
});
type ExpectationRecord = z.infer<typeof recordSchema>;

const keyOf = (field: ExpectationField, value: string): string => `expect:${field}:${value}`;

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
export async function findExpectation(
  store: Store,
  keys: readonly ExpectationKey[],
): Promise<ConversationRef | null> {
  for (const { field, value } of keys) {
    const key = keyOf(field, value);
    const record = await getJson(store, key, recordSchema);
    if (record !== null) return record.conversation;
  }
  return null;
}

/** The notification's origin is recorded: the expectations it matched for one order did their job. */
export async function settleExpectations(store: Store, keys: readonly ExpectationKey[]): Promise<void> {
  for (const { field, value } of keys) {
    const key = keyOf(field, value);
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
