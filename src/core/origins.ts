import type { Store } from "../store/store.js";
import { getJson, setJson } from "../store/store-json.js";
import { type ConversationRef, conversationRefSchema } from "./invocation.js";

/**
 * Which conversation caused what: order ids (5-minute orders, every orchestrator chunk, activations),
 * Host Mode addresses and report order numbers. Notifications (webhooks, callbacks) are routed back
 * to the conversation found here; anything unknown goes to the alert channel.
 */
export type OriginKind = "order" | "host" | "report" | "orchestrator";

/** Orders confirm within minutes, report webhooks retry for ~31 h, statements live 30 days. */
export const ORIGIN_TTL_MS: Record<OriginKind, number> = {
  order: 3 * 24 * 3_600_000,
  orchestrator: 3 * 24 * 3_600_000,
  report: 31 * 24 * 3_600_000,
  host: 365 * 24 * 3_600_000,
};

const originKey = (kind: OriginKind, id: string): string => `origin:${kind}:${id}`;

export async function rememberOrigin(
  store: Store,
  kind: OriginKind,
  id: string,
  conversation: ConversationRef,
): Promise<void> {
  await setJson(store, originKey(kind, id), conversation, ORIGIN_TTL_MS[kind]);
}

export async function findOrigin(
  store: Store,
  kind: OriginKind,
  id: string,
): Promise<ConversationRef | null> {
  return getJson(store, originKey(kind, id), conversationRefSchema);
}
