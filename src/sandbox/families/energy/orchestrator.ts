import { MIN_BALANCE_SUN, type SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { json, type Route, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";
import type { Chain } from "./chain.js";
import { canonicalJson, detailReply, evenChunks, isoOffset } from "./common.js";
import {
  acceptedDetail,
  FINAL,
  newItem,
  type OrchItem,
  type OrchOrder,
  statusDetail,
} from "./orchestrator-state.js";
import { resolveKey, type ValidItem, validateOrder } from "./orchestrator-validate.js";
import { createWorker, type OrchestratorFault } from "./orchestrator-worker.js";

const CHUNK_ABOVE = 1_000_000;
const MAX_ORDERS_IN_FLIGHT = 3;
const MAX_ADDRESSES_IN_FLIGHT = 300;

export function createOrchestrator(ctx: SandboxContext, chain: Chain, options: { stepMs: number }) {
  const worker = createWorker(ctx, chain, options);
  // `${userId}:${key}`: keys are scoped to the account.
  const orders = new Map<string, OrchOrder>();
  let unavailable = false;
  let nextRequestId = 41_000;
  let nextDeliveryKey = 1;

  const inFlight = (account: SandboxAccount) =>
    [...orders.values()].filter(
      (o) => o.account.userId === account.userId && o.items.some((i) => !FINAL.has(i.status)),
    );

  /** 401 / 403 before anything else; the orchestrator's error bodies are `detail {code, msg}`. */
  function authenticate(req: SandboxRequest): SandboxAccount | SandboxReply {
    const auth = ctx.accounts.authenticate(req, { checkIp: true });
    if (auth.ok) return auth.account;
    if (auth.reason === "blocked") return detailReply(403, 1005, "API key is blocked");
    return detailReply(401, -1, "Invalid API key or IP not whitelisted");
  }

  function overLimit(account: SandboxAccount, adding: number): SandboxReply | undefined {
    const flying = inFlight(account);
    const addresses = flying.reduce((n, o) => n + o.items.filter((i) => !FINAL.has(i.status)).length, 0);
    if (flying.length >= MAX_ORDERS_IN_FLIGHT || addresses + adding > MAX_ADDRESSES_IN_FLIGHT) {
      return detailReply(429, 5011, "Too many orders or addresses in flight", {}, { "retry-after": "1" });
    }
    return undefined;
  }

  function accept(account: SandboxAccount, key: string, body: Record<string, unknown>, items: ValidItem[]) {
    const clientRequestId = typeof body.clientRequestId === "string" ? body.clientRequestId : null;
    const order: OrchOrder = {
      key,
      requestId: nextRequestId++,
      clientRequestId,
      account,
      fingerprint: canonicalJson(body),
      acceptedAt: ctx.now(),
      items: [],
      running: 0,
    };
    order.items = items.map((valid) => {
      const parts = valid.amount > CHUNK_ABOVE ? Math.ceil(valid.amount / CHUNK_ABOVE) : 1;
      return newItem(key, nextDeliveryKey++, valid, evenChunks(valid.amount, parts));
    });
    orders.set(`${account.userId}:${key}`, order);
    worker.start(order);
    return json(202, { detail: acceptedDetail(order) });
  }

  function create(req: SandboxRequest): SandboxReply {
    const account = authenticate(req);
    if ("status" in account) return account;
    if (account.balanceSun < MIN_BALANCE_SUN)
      return detailReply(402, 1004, "Balance below the 4 TRX minimum");
    const body = readJson(req);
    const items = validateOrder(body);
    if ("status" in items) return items;
    const record = body as Record<string, unknown>;
    const key = resolveKey(req, record);
    if (typeof key !== "string") return key;
    const existing = orders.get(`${account.userId}:${key}`);
    if (existing) return replay(existing, record);
    if (unavailable)
      return detailReply(503, 5003, "Temporarily unavailable, nothing stored or charged; retry");
    return overLimit(account, items.length) ?? accept(account, key, record, items);
  }

  function replay(order: OrchOrder, body: Record<string, unknown>): SandboxReply {
    if (order.fingerprint !== canonicalJson(body)) {
      return detailReply(409, 4090, "IDEMPOTENCY_CONFLICT: this key was used with a different body", {
        status: "IDEMPOTENCY_CONFLICT",
      });
    }
    const original = acceptedDetail(order) as { data: Record<string, unknown> };
    const originalAcceptedAt = isoOffset(order.acceptedAt);
    return json(208, { detail: { ...original, data: { ...original.data, originalAcceptedAt } } });
  }

  /** The caller's order by key, or the documented 404 (unknown, or another account's). */
  function findOrder(req: SandboxRequest): OrchOrder | SandboxReply {
    const account = authenticate(req);
    if ("status" in account) return account;
    const order = orders.get(`${account.userId}:${req.params.key ?? ""}`);
    return order ?? detailReply(404, -1, "Order not found");
  }

  function status(req: SandboxRequest): SandboxReply {
    const order = findOrder(req);
    if ("status" in order) return order;
    const address = req.query.get("address");
    let items: OrchItem[] = order.items;
    if (address !== null) {
      items = order.items.filter((i) => i.receiveAddress === address);
      if (items.length === 0) return detailReply(404, -1, "Address not found in this order");
    }
    return json(200, { detail: statusDetail(order, items) });
  }

  function cancel(req: SandboxRequest): SandboxReply {
    const order = findOrder(req);
    if ("status" in order) return order;
    // An address already picked up is not interrupted.
    const queued = order.items.filter((i) => i.status === "queued");
    for (const item of queued) {
      item.status = "cancelled";
      item.finishedAt = ctx.now();
    }
    worker.notifyIfSettled(order);
    return detailReply(200, 10005, `${queued.length} queued address(es) cancelled`, {
      status: "cancelled",
      data: { cancelled: queued.length },
    });
  }

  const common = { buckets: ["orchestrator"] as const };
  const routes: Route[] = [
    {
      ...common,
      method: "POST",
      pattern: "/apiv2/orchestrator",
      name: "orchestrator.create",
      handler: create,
    },
    {
      ...common,
      method: "GET",
      pattern: "/apiv2/orchestrator/status/:key",
      name: "orchestrator.status",
      handler: status,
    },
    {
      ...common,
      method: "POST",
      pattern: "/apiv2/orchestrator/cancel/:key",
      name: "orchestrator.cancel",
      handler: cancel,
    },
  ];

  return {
    routes,
    control: {
      /** Orchestrator answers 503 code 5003 (not accepted, nothing stored). */
      setOrchestratorUnavailable(on: boolean): void {
        unavailable = on;
      },
      /** Makes an address fail (or deliver all but its last chunk) or one of its steps fail. */
      failOrchestratorAddress(address: string, fault: OrchestratorFault): void {
        worker.setFault(address, fault);
      },
      orchestratorOrder(account: SandboxAccount, key: string): OrchOrder | undefined {
        return orders.get(`${account.userId}:${key}`);
      },
      /** Resolves when every address of the order reached a final state. */
      async orchestratorSettled(account: SandboxAccount, key: string): Promise<void> {
        const order = orders.get(`${account.userId}:${key}`);
        if (!order) throw new Error(`no orchestrator order ${key}`);
        await worker.whenSettled(order);
      },
    },
  };
}
