import type { Store } from "../../src/store/store.js";

/**
 * Where a Teams conversation is reached (its `serviceUrl` and tenant), as the bot last saw it: kept
 * in the shared store, so every instance can post there, proactive messages included. Written on
 * every checked activity and when the bot is installed in a team (the team's id is its General
 * channel's).
 */
export interface ConversationPlace {
  serviceUrl: string;
  tenantId: string;
  /** `channel`, `groupChat` or `personal`. */
  conversationType?: string;
  botName?: string;
}

const KEY = (conversationId: string) => `teams:conversation:${conversationId}`;
/** A place unseen for this long is forgotten. */
const PLACE_TTL_MS = 400 * 24 * 3_600_000;

export async function savePlace(
  store: Store,
  conversationId: string,
  place: ConversationPlace,
): Promise<void> {
  await store.set(KEY(conversationId), JSON.stringify(place), PLACE_TTL_MS);
}

export async function readPlace(
  store: Store,
  conversationId: string,
): Promise<ConversationPlace | undefined> {
  const raw = await store.get(KEY(conversationId));
  if (raw === null) return undefined;
  try {
    const place = JSON.parse(raw) as ConversationPlace;
    return typeof place.serviceUrl === "string" && typeof place.tenantId === "string" ? place : undefined;
  } catch {
    return undefined;
  }
}
