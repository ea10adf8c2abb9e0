import { charge, type SandboxAccount, sunToTrx } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { ACTIVATION_SUN, ENERGY_5M_PERIODS, energyCostSun } from "../../price-book.js";
import { json, type Route, type SandboxReply, type SandboxRequest } from "../../router.js";
import type { ActivationRecord, Chain, EnergyOrderRecord } from "./chain.js";
import {
  bodyObject,
  detailReply,
  headerValue,
  isoUtc,
  TRON_ADDRESS,
  trx4,
  validationReply,
  wait,
} from "./common.js";

const MIN_ENERGY = 61_000;
const MAX_ENERGY = 650_000;
/** The free buffer the service adds on top of the requested energy. */
const ENERGY_BUFFER = 50;
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY = /^[0-9a-f]{64}$/;

export interface Order5mOptions {
  latencyMs: number;
  /** Window in which an identical keyless order is the same order (the spec's 2 seconds). */
  duplicateWindowMs: number;
}

type CacheEntry =
  | { state: "running"; startedAt: number; readyAt: number }
  | { state: "completed"; body: Record<string, unknown>; createdAt: number; expiresAt: number };

interface Placed {
  record: EnergyOrderRecord;
  activation: ActivationRecord | undefined;
  body: Record<string, unknown>;
}

interface Admitted {
  account: SandboxAccount;
  order: Validated;
  cacheKey: string;
  lifetimeMs: number;
}

interface Validated {
  amount: number;
  receiveAddress: string;
}

/** Body checks: shape problems are a 422 `detail` array, an integer out of range is 1003. */
function validate(body: Record<string, unknown> | undefined): Validated | SandboxReply {
  if (!body) return validationReply([{ loc: [], msg: "Input should be a valid dictionary" }]);
  const { amount, receiveAddress } = body;
  if (typeof amount !== "number" || !Number.isInteger(amount)) {
    return validationReply([{ loc: ["amount"], msg: "Input should be a valid integer" }]);
  }
  if (typeof receiveAddress !== "string" || !TRON_ADDRESS.test(receiveAddress)) {
    return validationReply([{ loc: ["receiveAddress"], msg: "Invalid TRON address" }]);
  }
  if (amount < MIN_ENERGY || amount > MAX_ENERGY) {
    return detailReply(400, 1003, `Energy amount must be between ${MIN_ENERGY} and ${MAX_ENERGY}`);
  }
  return { amount, receiveAddress };
}

export function createOrder5m(ctx: SandboxContext, chain: Chain, options: Order5mOptions) {
  // Scoped by account: `${userId}:${key}`; keyless orders use an implicit key with a short life.
  const cache = new Map<string, CacheEntry>();
  const payerMissing = new Set<number>();
  let poolsAtCapacity = false;

  function lookup(cacheKey: string): CacheEntry | undefined {
    const entry = cache.get(cacheKey);
    if (entry?.state === "completed" && entry.expiresAt <= ctx.now()) {
      cache.delete(cacheKey);
      return undefined;
    }
    return entry;
  }

  function repeatReply(entry: CacheEntry): SandboxReply {
    if (entry.state === "running") {
      const seconds = Math.max(1, Math.ceil((entry.readyAt - ctx.now()) / 1000));
      return json(409, {
        success: false,
        error: "duplicate_request_processing",
        message: "A request with this idempotency key is still being processed",
        retry_after_seconds: seconds,
      });
    }
    const idempotency = { status: "completed", cached: true, original_created_at: isoUtc(entry.createdAt) };
    return json(208, { ...entry.body, idempotency });
  }

  /** Charges energy (and the activation, once per address) and records the order. */
  function place(account: SandboxAccount, order: Validated): SandboxReply | Placed {
    const energyCost = energyCostSun(ENERGY_5M_PERIODS, order.amount, ctx.now());
    const activating = chain.needsActivation(order.receiveAddress);
    const total = energyCost + (activating ? ACTIVATION_SUN : 0);
    if (!charge(account, total)) return detailReply(403, 1004, "Insufficient funds");
    const energy = order.amount + ENERGY_BUFFER;
    const record = chain.recordEnergyOrder(account, {
      ...order,
      period: "5m",
      energy,
      costSun: energyCost,
      source: "order5m",
    });
    const activation = activating
      ? chain.activate(account, order.receiveAddress, ACTIVATION_SUN, record.orderId)
      : undefined;
    const msg = activation
      ? `Energy delegated: ${energy} energy for ${trx4(energyCost)} TRX plus address activation for ${trx4(ACTIVATION_SUN)} TRX (total ${trx4(total)} TRX)`
      : `Energy delegated: ${energy} energy for ${trx4(energyCost)} TRX`;
    const data: Record<string, unknown> = {
      orderId: record.orderId,
      paidTRX: sunToTrx(total),
      hash: record.hash,
      delegateAddress: record.delegateAddress,
      energy,
    };
    if (activation) data.activationHash = activation.hash;
    return { record, activation, body: { detail: { code: 10000, msg, data } } };
  }

  /** Who asks, with which key, for what: or the reply that refuses it. */
  function admit(req: SandboxRequest): Admitted | SandboxReply {
    const auth = ctx.accounts.authenticate(req, { checkIp: true });
    if (!auth.ok && auth.reason === "blocked") return detailReply(403, 1005, "API key is blocked");
    if (!auth.ok) return json(401, { detail: "Invalid API key or IP address not whitelisted" });
    const key = headerValue(req, "x-idempotency-key");
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      return json(400, {
        detail: "Invalid X-Idempotency-Key: expected exactly 64 lowercase hexadecimal characters",
      });
    }
    const order = validate(bodyObject(req));
    if ("status" in order) return order;
    const { account } = auth;
    // With a key only the key decides; without one, amount + receiver + API key inside the window.
    const cacheKey =
      key !== undefined
        ? `${account.userId}:${key}`
        : `${account.userId}:implicit:${account.apiKey}:${order.amount}:${order.receiveAddress}`;
    return {
      account,
      order,
      cacheKey,
      lifetimeMs: key !== undefined ? KEY_LIFETIME_MS : options.duplicateWindowMs,
    };
  }

  async function handle(req: SandboxRequest): Promise<SandboxReply> {
    const admitted = admit(req);
    if ("status" in admitted) return admitted;
    const { account, order, cacheKey, lifetimeMs } = admitted;
    const previous = lookup(cacheKey);
    if (previous) return repeatReply(previous);
    if (payerMissing.has(account.userId)) return detailReply(400, 1005, "Payer address not configured");
    if (poolsAtCapacity) {
      return detailReply(
        503,
        5003,
        "Energy service unavailable: pools at capacity, retry in 2-3 seconds or use order1h",
      );
    }
    const startedAt = ctx.now();
    const placed = place(account, order);
    if ("status" in placed) return placed;
    cache.set(cacheKey, { state: "running", startedAt, readyAt: startedAt + options.latencyMs });
    // Delivery takes a moment; repeats meanwhile get 409.
    await wait(ctx, options.latencyMs);
    const expiresAt = startedAt + lifetimeMs;
    cache.set(cacheKey, { state: "completed", body: placed.body, createdAt: startedAt, expiresAt });
    // Two webhooks with separate deliveries when the order also activated the address.
    if (placed.activation) chain.announceActivation(account, placed.activation);
    chain.announceDelegation(account, placed.record);
    return json(200, placed.body);
  }

  const route: Route = {
    method: "POST",
    pattern: "/apiv2/order5m",
    name: "order5m.create",
    buckets: ["order5m"],
    handler: handle,
  };

  return {
    routes: [route],
    control: {
      /** Pools at capacity: order5m answers 503 code 5003 and charges nothing. */
      setPoolsAtCapacity(on: boolean): void {
        poolsAtCapacity = on;
      },
      /** The account has no payer address: order5m answers 400 code 1005. */
      setPayerConfigured(account: SandboxAccount, configured: boolean): void {
        if (configured) payerMissing.delete(account.userId);
        else payerMissing.add(account.userId);
      },
    },
  };
}
