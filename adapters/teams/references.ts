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

async function savePlace(store: Store, conversationId: string, place: ConversationPlace): Promise<void> {
  await store.set(KEY(conversationId), JSON.stringify(place), PLACE_TTL_MS);
}

/** An unchanged place is written again after this (its TTL is long; this keeps it from lapsing). */
const REWRITE_UNCHANGED_MS = 24 * 3_600_000;
/** Conversations remembered as written; past this many, the memory starts over. */
const MEMO_LIMIT = 10_000;

/**
 * `savePlace` for every activity without a store write for each: a place is written when it is new
 * or changed, or a day after this instance last wrote it.
 */
export function createPlaceWriter(store: Store, now: () => number = Date.now) {
  const written = new Map<string, { json: string; at: number }>();
  return async function save(conversationId: string, place: ConversationPlace): Promise<void> {
    const json = JSON.stringify(place);
    const last = written.get(conversationId);
    if (last?.json === json && now() - last.at < REWRITE_UNCHANGED_MS) return;
    await savePlace(store, conversationId, place);
    if (written.size >= MEMO_LIMIT) written.clear();
    written.set(conversationId, { json, at: now() });
  };
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
