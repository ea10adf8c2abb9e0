import { z } from "zod";
import type { Store } from "../../store/store.js";
import { CLAIM_KEY } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import type { AgentRequester } from "../spend/energy-payload.js";

/**
 * An agent's energy request, from its quote in the agents' channel to its outcome. The agent
 * follows it with `get_request`; the energy Confirm tells it what became of it (`noteAgentOutcome`,
 * called where each outcome is known). Cancelled and expired are read lazily: a Cancel claims the
 * quote's button group with the canceller's name (a Confirm claims it with its intent, a JSON
 * object), and buttons nobody pressed lapse at their expiry.
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
/** An order's delivery, marked whoever ordered it: the webhook may come before the order's answer. */
const DELIVERED_KEY = (orderId: string) => `agent-request:delivered:${orderId}`;
const DELIVERED_TTL_MS = 3 * 24 * 60 * 60_000;

export async function saveRequest(store: Store, request: AgentRequest): Promise<void> {
  await store.set(REQUEST_KEY(request.id), JSON.stringify(request), REQUEST_TTL_MS);
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
  if (request.status !== "awaiting_confirmation") return request;
  const claim = await deps.store.get(CLAIM_KEY(request.confirmationId));
  if (claim !== null && !claim.startsWith("{"))
    return { ...request, status: "cancelled", confirmedBy: claim };
  if (claim === null && deps.now() >= request.expiresAt) return { ...request, status: "expired" };
  return request;
}

/** What the energy Confirm learnt of an agent's request (see src/core/energy/). */
export type AgentOutcome =
  | { status: "awaiting_confirmation"; confirmationId: string; expiresAt: number }
  | { status: "approval_pending"; confirmedBy: string; expiresAt: number }
  | { status: "ordered"; orderId: string; paidTrx?: string; confirmedBy: string }
  | { status: "refused" | "failed"; line: string; confirmedBy?: string };

/**
 * Records an outcome of an agent's request. Never throws: the spend happened (or not) whatever
 * this bookkeeping does, so a failure here is logged and the person's reply goes on.
 */
export async function noteAgentOutcome(
  deps: Pick<CoreDeps, "store" | "logger">,
  requester: AgentRequester | undefined,
  outcome: AgentOutcome,
): Promise<void> {
  if (!requester) return;
  try {
    const request = await readStored(deps.store, requester.requestId);
    if (!request) return;
    await saveRequest(deps.store, { ...request, ...outcome });
    if (outcome.status === "ordered") {
      await deps.store.set(ORDER_KEY(outcome.orderId), request.id, REQUEST_TTL_MS);
    }
  } catch (error) {
    deps.logger.error(
      { err: error, requestId: requester.requestId },
      "could not record an agent request's outcome",
    );
  }
}

/** The delivery of an order: the agent's request it served (if any) is delivered, now or when read. */
export async function noteAgentDelivered(
  deps: Pick<CoreDeps, "store" | "logger">,
  orderId: string,
): Promise<void> {
  try {
    await deps.store.set(DELIVERED_KEY(orderId), "1", DELIVERED_TTL_MS);
    const id = await deps.store.get(ORDER_KEY(orderId));
    const request = id === null ? undefined : await readStored(deps.store, id);
    if (request?.status === "ordered") await saveRequest(deps.store, { ...request, status: "delivered" });
  } catch (error) {
    deps.logger.error({ err: error, orderId }, "could not record an agent request's delivery");
  }
}
