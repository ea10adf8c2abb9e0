import type { Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";
import { type ConversationRef, conversationKey, conversationRefSchema } from "../invocation.js";
import type { Reply } from "../reply.js";

/**
 * Subscriptions: a conversation asks for copies of one kind of notification (`subscribe alerts`).
 * Kept per kind in one hash (conversation → where to post), read by whoever posts that kind; the
 * copies go through the notifier like every notice, so they share its pace and coalescing.
 */
export const SUBSCRIPTION_KINDS = ["alerts", "deliveries", "watch", "digest"] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

const SUBS_KEY = (kind: SubscriptionKind) => `subs:${kind}`;

export const isSubscriptionKind = (word: string): word is SubscriptionKind =>
  (SUBSCRIPTION_KINDS as readonly string[]).includes(word);

/** A conversation as a subscription keeps it: the channel or chat, never a thread. */
const whole = (c: ConversationRef): ConversationRef => ({ platform: c.platform, id: c.id });

export async function subscribe(store: Store, kind: SubscriptionKind, c: ConversationRef): Promise<boolean> {
  const key = conversationKey(whole(c));
  const had = await store.hashGet(SUBS_KEY(kind), key);
  await store.hashSet(SUBS_KEY(kind), key, JSON.stringify(whole(c)));
  return had === null;
}

export async function unsubscribe(
  store: Store,
  kind: SubscriptionKind,
  c: ConversationRef,
): Promise<boolean> {
  const key = conversationKey(whole(c));
  const had = await store.hashGet(SUBS_KEY(kind), key);
  if (had !== null) await store.hashDel(SUBS_KEY(kind), key);
  return had !== null;
}

async function subscribers(store: Store, kind: SubscriptionKind): Promise<ConversationRef[]> {
  const out: ConversationRef[] = [];
  for (const raw of Object.values(await store.hashGetAll(SUBS_KEY(kind)))) {
    try {
      const parsed = conversationRefSchema.safeParse(JSON.parse(raw));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // A hand-edited entry: skipped.
    }
  }
  return out.sort((a, b) => conversationKey(a).localeCompare(conversationKey(b)));
}

export async function subscriptionsOf(store: Store, c: ConversationRef): Promise<SubscriptionKind[]> {
  const key = conversationKey(whole(c));
  const found: SubscriptionKind[] = [];
  for (const kind of SUBSCRIPTION_KINDS)
    if ((await store.hashGet(SUBS_KEY(kind), key)) !== null) found.push(kind);
  return found;
}

const sameChat = (a: ConversationRef, b: ConversationRef): boolean =>
  a.platform === b.platform && a.id === b.id;

/** The subscribers of `kind` that are not already among `posted` (they have the notice). */
export async function copyTargets(
  store: Store,
  kind: SubscriptionKind,
  posted: readonly ConversationRef[],
): Promise<ConversationRef[]> {
  return (await subscribers(store, kind)).filter((s) => !posted.some((p) => sameChat(p, s)));
}

/**
 * Posts a copy of a notice to every subscriber of `kind` that did not get it already. Never
 * throws: a copy must not fail the original's delivery.
 */
export async function postCopies(
  deps: Pick<CoreDeps, "store" | "notifier" | "logger">,
  kind: SubscriptionKind,
  posted: readonly ConversationRef[],
  reply: Reply,
  dedupKey: string,
): Promise<void> {
  try {
    const { replaces: _r, replacesOriginal: _o, ...copy } = reply;
    for (const target of await copyTargets(deps.store, kind, posted)) {
      await deps.notifier.post(
        target,
        { ...copy, visibility: "public" },
        `${dedupKey}:copy:${conversationKey(target)}`,
      );
    }
  } catch (error) {
    deps.logger.warn({ err: error, kind }, "could not post copies to subscribed conversations");
  }
}
