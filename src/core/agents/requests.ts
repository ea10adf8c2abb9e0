import { z } from "zod";
import type { Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";

/**
 * An agent's energy request, from its quote in the agents' channel to its outcome. The agent
 * follows it with `get_request`; the spend's lifecycle hook (lifecycle.ts) records what became of
 * it, found by the quote's confirmation id. Expired is read lazily: buttons nobody pressed lapse at
 * their expiry, and an order's delivery may be marked before its answer names the order.
 */
const AGENT_REQUEST_STATUSES = [
  "awaiting_confirmation",
  "approval_pending",
  "ordered",
  "delivered",
  "cancelled",
  "expired",
  "refused",
  "failed",
] as const;

const requestSchema = z.object({
  id: z.string(),
  agent: z.string(),
  reason: z.string(),
  address: z.string(),
  amount: z.number(),
  quoteTrx: z.string(),
  status: z.enum(AGENT_REQUEST_STATUSES),
  /** The button group of the quote now shown (a price rise shows a new one). */
  confirmationId: z.string(),
  /** When the quote's buttons, or the approval request, lapse. */
  expiresAt: z.number(),
  createdAt: z.number(),
  orderId: z.string().optional(),
  paidTrx: z.string().optional(),
  confirmedBy: z.string().optional(),
  line: z.string().optional(),
});
export type AgentRequest = z.infer<typeof requestSchema>;

/** Kept a week: an agent may ask about a request long after its order. */
const REQUEST_TTL_MS = 7 * 24 * 60 * 60_000;
const REQUEST_KEY = (id: string) => `agent-request:${id}`;
const ORDER_KEY = (orderId: string) => `agent-request:order:${orderId}`;
/** The request a quote's button group (its confirmation id) belongs to. */
const CONFIRMATION_KEY = (confirmationId: string) => `agent-request:confirmation:${confirmationId}`;
/** An order's delivery, marked whoever ordered it: the webhook may come before the order's answer. */
const DELIVERED_KEY = (orderId: string) => `agent-request:delivered:${orderId}`;
const DELIVERED_TTL_MS = 3 * 24 * 60 * 60_000;

/** Saves the request, found again by its id and by the confirmation of the quote it shows. */
export async function saveRequest(store: Store, request: AgentRequest): Promise<void> {
  await store.set(REQUEST_KEY(request.id), JSON.stringify(request), REQUEST_TTL_MS);
  await store.set(CONFIRMATION_KEY(request.confirmationId), request.id, REQUEST_TTL_MS);
}

/** The request whose quote (or approval request) has this confirmation id, if an agent's. */
export async function requestOfConfirmation(
  store: Store,
  confirmationId: string,
): Promise<AgentRequest | undefined> {
  const id = await store.get(CONFIRMATION_KEY(confirmationId));
  return id === null ? undefined : readStored(store, id);
}

/** An ordered request's order: its delivery is found by the order id. */
export async function rememberOrder(store: Store, orderId: string, requestId: string): Promise<void> {
  await store.set(ORDER_KEY(orderId), requestId, REQUEST_TTL_MS);
}

/** The delivery of an order: the agent's request it served (if any) is delivered, now or when read. */
export async function markRequestDelivered(store: Store, orderId: string): Promise<void> {
  await store.set(DELIVERED_KEY(orderId), "1", DELIVERED_TTL_MS);
  const id = await store.get(ORDER_KEY(orderId));
  const request = id === null ? undefined : await readStored(store, id);
  if (request?.status === "ordered") await saveRequest(store, { ...request, status: "delivered" });
}

async function readStored(store: Store, id: string): Promise<AgentRequest | undefined> {
  const raw = await store.get(REQUEST_KEY(id));
  if (raw === null) return undefined;
  const parsed = requestSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : undefined;
}

/** The request as the agent sees it now: cancelled or expired worked out from the buttons. */
export async function readRequest(
  deps: Pick<CoreDeps, "store" | "now">,
  id: string,
): Promise<AgentRequest | undefined> {
  const request = await readStored(deps.store, id);
  if (!request) return undefined;
  if (request.status === "ordered" && request.orderId !== undefined) {
    const delivered = await deps.store.get(DELIVERED_KEY(request.orderId));
    return delivered === null ? request : { ...request, status: "delivered" };
  }
  if (request.status === "approval_pending" && deps.now() >= request.expiresAt) {
    return { ...request, status: "expired" };
  }
  if (request.status === "awaiting_confirmation" && deps.now() >= request.expiresAt) {
    return { ...request, status: "expired" };
  }
  return request;
}
