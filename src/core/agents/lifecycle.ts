import { ACTION_TTL_MS } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import type { SpendEvent, SpendLifecycle } from "../spend-lifecycle.js";
import {
  type AgentRequest,
  markRequestDelivered,
  rememberOrder,
  requestOfConfirmation,
  saveRequest,
} from "./requests.js";

type Deps = Pick<CoreDeps, "store" | "now" | "settings">;

/**
 * The agents' side of the spend lifecycle (`CoreDeps.spendLifecycle`): each event of a spend an
 * agent asked for (its `requester`) is found by its confirmation id and becomes the status the
 * agent reads with `get_request`. Spends nobody's agent asked for are not looked up.
 */
export function agentRequestLifecycle(deps: Deps): SpendLifecycle {
  return {
    async on(event) {
      if (event.requester?.kind !== "agent") return;
      // A quote shown again (a price rise) follows the request of the quote it replaces.
      const key =
        event.status === "quoted" && event.replaces !== undefined ? event.replaces : event.confirmationId;
      const request = await requestOfConfirmation(deps.store, key);
      if (request === undefined) return;
      const next = nextRequest(deps, request, event);
      if (next === undefined) return;
      await saveRequest(deps.store, next);
      if (next.status === "ordered" && next.orderId !== undefined) {
        await rememberOrder(deps.store, next.orderId, next.id);
      }
    },
    delivered: (orderId) => markRequestDelivered(deps.store, orderId),
  };
}

/** The request after one event; undefined: nothing to record (the first quote is saved by request_energy). */
function nextRequest(deps: Deps, request: AgentRequest, event: SpendEvent): AgentRequest | undefined {
  switch (event.status) {
    case "quoted":
      if (event.replaces === undefined) return undefined;
      return {
        ...request,
        status: "awaiting_confirmation",
        confirmationId: event.confirmationId,
        ...(event.quoteTrx !== undefined && { quoteTrx: event.quoteTrx }),
        expiresAt: deps.now() + ACTION_TTL_MS,
      };
    case "approval_pending": {
      return { ...request, status: "approval_pending", expiresAt: deps.now() + deps.settings.approvalTtlMs };
    }
    case "ordered": {
      const orderId = event.orderIds?.[0];
      return {
        ...request,
        status: "ordered",
        confirmedBy: event.confirmedBy,
        ...(orderId !== undefined && { orderId }),
        ...(event.paidTrx !== undefined && { paidTrx: event.paidTrx }),
      };
    }
    case "refused":
    case "failed":
      return { ...request, status: event.status, line: event.line };
    case "cancelled":
    case "expired":
      return { ...request, status: event.status };
    case "delivered":
      return { ...request, status: "delivered" };
  }
}
