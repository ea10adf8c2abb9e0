import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import { actorSchema, type ConversationRef, conversationKey, conversationRefSchema } from "../invocation.js";
import type { Timing } from "./recurrence.js";

/**
 * Standing orders in the store. What was confirmed (`schedule:<id>`) never changes after it is
 * created; its state (active or paused, and why) and its last outcome live in keys of their own,
 * so a run recording its outcome and a person pausing it never overwrite each other.
 */
export const MAX_PER_CONVERSATION = 50;

const repeatSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("daily") }),
  z.object({ kind: z.literal("days"), days: z.array(z.number().int().min(0).max(6)) }),
  z.object({ kind: z.literal("once"), at: z.number() }),
]);

const standingOrderSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  /** Where it was created (listed there). */
  conversation: conversationRefSchema,
  /** Where its runs are posted: the thread of the message that confirmed it. */
  thread: conversationRefSchema,
  address: z.string(),
  amount: z.number().int().positive(),
  atMin: z.number().int().min(0).max(1439),
  repeat: repeatSchema,
  /** The highest unit price (SUN per energy unit) a run may pay; unset: any. */
  maxSun: z.number().int().positive().optional(),
  createdBy: actorSchema,
  createdAt: z.number(),
});
export type StandingOrder = z.infer<typeof standingOrderSchema>;

const stateSchema = z.object({
  state: z.enum(["active", "paused", "removed"]),
  by: z.string().optional(),
  why: z.string().optional(),
  at: z.number(),
});
export type OrderState = z.infer<typeof stateSchema>;

const lastSchema = z.object({ occurrence: z.number(), at: z.number(), outcome: z.string() });
export type LastRun = z.infer<typeof lastSchema>;

const orderKey = (id: string) => `schedule:${id}`;
const stateKey = (id: string) => `schedule:${id}:state`;
const lastKey = (id: string) => `schedule:${id}:last`;
const listKey = (c: ConversationRef) => `schedules:${conversationKey({ platform: c.platform, id: c.id })}`;
const SEQ_KEY = "schedule:seq";
/** Every standing order, for the safety net that plans each one's next occurrence. */
const ALL_KEY = "schedules:all";

export const allOrderIds = (store: Store): Promise<string[]> => store.setMembers(ALL_KEY);
/** The standing orders of an address, so a deny-list change can pause them. */
const addressKey = (address: string) => `schedules:address:${address}`;

export const idsForAddress = (store: Store, address: string): Promise<string[]> =>
  store.setMembers(addressKey(address));

export const timingOf = (order: StandingOrder): Timing => ({ atMin: order.atMin, repeat: order.repeat });

export const readOrder = (store: Store, id: string): Promise<StandingOrder | null> =>
  getJson(store, orderKey(id), standingOrderSchema);

export const readState = async (store: Store, id: string): Promise<OrderState | null> =>
  getJson(store, stateKey(id), stateSchema);

export const readLast = (store: Store, id: string): Promise<LastRun | null> =>
  getJson(store, lastKey(id), lastSchema);

export async function setState(store: Store, id: string, state: OrderState): Promise<void> {
  await setJson(store, stateKey(id), state);
}

export async function saveLast(store: Store, id: string, last: LastRun): Promise<void> {
  await setJson(store, lastKey(id), last);
}

/** The ids listed in a conversation (its channel or chat, whatever thread), oldest first. */
export async function idsIn(store: Store, conversation: ConversationRef): Promise<string[]> {
  const ids = await store.setMembers(listKey(conversation));
  return ids.sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

export async function ordersIn(store: Store, conversation: ConversationRef): Promise<StandingOrder[]> {
  const orders = await Promise.all((await idsIn(store, conversation)).map((id) => readOrder(store, id)));
  return orders.filter((o): o is StandingOrder => o !== null);
}

/** A new id (S1, S2, …, shared by every conversation). */
export const newOrderId = async (store: Store): Promise<string> => `S${await store.incrBy(SEQ_KEY, 1)}`;

export async function createOrder(store: Store, order: StandingOrder, by: string): Promise<void> {
  await setJson(store, orderKey(order.id), order);
  await setState(store, order.id, { state: "active", by, at: order.createdAt });
  await store.setAdd(listKey(order.conversation), order.id);
  await store.setAdd(addressKey(order.address), order.id);
  await store.setAdd(ALL_KEY, order.id);
}

/**
 * Removed: unlisted at once; the record stays two days marked "removed", so a run that was
 * already under way when it was removed (recovered after a crash) can still reconcile its order.
 */
export async function deleteOrder(store: Store, order: StandingOrder, by: string, at: number): Promise<void> {
  await store.setRemove(listKey(order.conversation), order.id);
  await store.setRemove(addressKey(order.address), order.id);
  await store.setRemove(ALL_KEY, order.id);
  await setJson(store, orderKey(order.id), order, REMOVED_TTL_MS);
  await setJson(store, stateKey(order.id), { state: "removed", by, at }, REMOVED_TTL_MS);
  await store.del(lastKey(order.id));
}

const REMOVED_TTL_MS = 48 * 60 * 60_000;

/** The order when it belongs to this conversation's channel or chat (ids are not secrets, but not shared). */
export async function orderHere(
  store: Store,
  conversation: ConversationRef,
  id: string,
): Promise<StandingOrder | null> {
  const order = await readOrder(store, id);
  if (!order || (await readState(store, id))?.state === "removed") return null;
  return order.conversation.platform === conversation.platform && order.conversation.id === conversation.id
    ? order
    : null;
}
