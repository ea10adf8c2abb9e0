import { z } from "zod";
import { parseReply } from "./decode-error.js";
import { notSent, type ServiceError } from "./errors.js";
import { isClientRequestId, isRequestIdempotencyKey } from "./idempotency.js";
import type { Transport } from "./transport.js";
import { wrapperSchema } from "./wrapper-schema.js";

const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const ORCHESTRATOR_LIMITS = {
  minItems: 1,
  maxItems: 100,
  minEnergy: 61_000,
  maxEnergy: 50_000_000,
  maxTotalEnergy: 50_000_000,
  bandwidthAmounts: [400, 5000],
  bandwidthPeriods: ["5m", "1h"],
} as const;

/** Per-address options; every one may also be set in `defaults` (an item's own value wins). */
interface OrchestratorItemOptions {
  bandwidth?: boolean;
  bandwidthAmount?: 400 | 5000;
  bandwidthPeriod?: "5m" | "1h";
  check?: boolean;
  trx_send?: boolean;
  activation?: boolean;
}

export interface OrchestratorItem extends OrchestratorItemOptions {
  receiveAddress: string;
  amount: number;
}

export interface OrchestratorRequest {
  items: OrchestratorItem[];
  defaults?: OrchestratorItemOptions;
  /** 12 to 128 characters of A-Z a-z 0-9 . _ : - (see `requestIdempotencyKey`). */
  idempotencyKey: string;
}

/** "planned" values: the spec does not show their type, so accept what a service may reasonably send. */
const planned = z
  .union([z.boolean(), z.string(), z.record(z.string(), z.unknown())])
  .nullable()
  .optional();

const orchestratorAcceptedItemSchema = z.object({
  deliveryKey: z.number().int(),
  trackingId: z.string(),
  receiveAddress: z.string(),
  amount: z.number().int(),
  energyChunks: z.number().int(),
  activation: planned,
  bandwidth: planned,
  status: z.string(),
});

const orchestratorAcceptedSchema = z.object({
  code: z.number().int(),
  status: z.string(),
  msg: z.string(),
  data: z.object({
    idempotencyKey: z.string(),
    requestId: z.number().int(),
    itemsAccepted: z.number().int(),
    statusUrl: z.string(),
    items: z.array(orchestratorAcceptedItemSchema),
    originalAcceptedAt: z.string().optional(),
  }),
  originalAcceptedAt: z.string().optional(),
});

const counters = z.object({
  total: z.number().int(),
  queued: z.number().int(),
  processing: z.number().int(),
  completed: z.number().int(),
  partial: z.number().int(),
  failed: z.number().int(),
  insufficient_balance: z.number().int(),
  credentials_revoked: z.number().int(),
  cancelled: z.number().int(),
});

const orchestratorStatusItemSchema = z.object({
  deliveryKey: z.number().int(),
  trackingId: z.string(),
  receiveAddress: z.string(),
  status: z.string(),
  energy: z.object({
    requested: z.number().int(),
    delegated: z.number().int(),
    status: z.string().nullable(),
    chunks: z.object({ total: z.number().int(), done: z.number().int() }),
    orderIds: z.array(z.string()),
    hashes: z.array(z.string()),
  }),
  activation: z.object({
    status: z.string().nullable(),
    orderId: z.string().nullable(),
    hash: z.string().nullable(),
  }),
  bandwidth: z.object({
    status: z.string().nullable(),
    orderId: z.string().nullable(),
    amount: z.number().int().nullable(),
    period: z.string().nullable(),
    hashes: z.array(z.string()),
    skipReason: z.string().nullable(),
  }),
  attempts: z.number().int(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

const orchestratorStatusSchema = z.object({
  code: z.number().int(),
  status: z.string(),
  data: z.object({
    idempotencyKey: z.string(),
    requestId: z.number().int(),
    clientRequestId: z.string().nullable(),
    summary: counters,
    items: z.array(orchestratorStatusItemSchema),
  }),
});

const orchestratorCancelSchema = z.object({
  code: z.number().int(),
  status: z.string(),
  msg: z.string(),
  data: z.object({ cancelled: z.number().int() }),
});

export type OrchestratorAccepted = z.infer<typeof orchestratorAcceptedSchema>;
export type OrchestratorStatus = z.infer<typeof orchestratorStatusSchema>;
export type OrchestratorStatusItem = z.infer<typeof orchestratorStatusItemSchema>;
export type OrchestratorCancelled = z.infer<typeof orchestratorCancelSchema>;

/** Item states after which nothing changes any more. */
export const ORCHESTRATOR_FINAL_STATES = new Set([
  "completed",
  "partial",
  "failed",
  "insufficient_balance",
  "credentials_revoked",
  "cancelled",
]);

const wrap = wrapperSchema(<S extends z.ZodType>(inner: S) => z.object({ detail: inner }));

function rejected(endpoint: string, code: number, message: string): ServiceError {
  return notSent("orchestrator", endpoint, message, code);
}

const ENDPOINT_CREATE = "orchestrator.create";

function checkOptions(where: string, options: OrchestratorItemOptions): void {
  const { bandwidthAmount, bandwidthPeriod } = options;
  if (bandwidthAmount !== undefined && !ORCHESTRATOR_LIMITS.bandwidthAmounts.includes(bandwidthAmount)) {
    throw rejected(ENDPOINT_CREATE, 5004, `${where}: bandwidthAmount must be 400 or 5000`);
  }
  if (bandwidthPeriod !== undefined && !ORCHESTRATOR_LIMITS.bandwidthPeriods.includes(bandwidthPeriod)) {
    throw rejected(ENDPOINT_CREATE, 5004, `${where}: bandwidthPeriod must be 5m or 1h`);
  }
}

/** The service's own checks, done first so a bad order costs no request (codes as the service gives them). */
function checkOrder(request: OrchestratorRequest): void {
  const { items, defaults, idempotencyKey } = request;
  const { maxItems, minEnergy, maxEnergy, maxTotalEnergy } = ORCHESTRATOR_LIMITS;
  if (!isRequestIdempotencyKey(idempotencyKey)) {
    throw rejected(
      ENDPOINT_CREATE,
      5009,
      "X-Idempotency-Key must be 12 to 128 characters of A-Z a-z 0-9 . _ : -",
    );
  }
  if (items.length === 0) throw rejected(ENDPOINT_CREATE, 5005, "items must not be empty");
  if (items.length > maxItems) throw rejected(ENDPOINT_CREATE, 4220, `at most ${maxItems} items per order`);
  if (defaults) checkOptions("defaults", defaults);
  const seen = new Set<string>();
  let total = 0;
  items.forEach((item, i) => {
    if (!TRON_ADDRESS.test(item.receiveAddress)) {
      throw rejected(ENDPOINT_CREATE, 5004, `items[${i}]: receiveAddress is not a TRON address`);
    }
    if (!Number.isInteger(item.amount) || item.amount < minEnergy || item.amount > maxEnergy) {
      throw rejected(
        ENDPOINT_CREATE,
        5004,
        `items[${i}]: amount must be between ${minEnergy} and ${maxEnergy}`,
      );
    }
    checkOptions(`items[${i}]`, item);
    if (seen.has(item.receiveAddress)) {
      throw rejected(ENDPOINT_CREATE, 5006, `items[${i}]: duplicate receiveAddress ${item.receiveAddress}`);
    }
    seen.add(item.receiveAddress);
    total += item.amount;
  });
  if (total > maxTotalEnergy) {
    throw rejected(ENDPOINT_CREATE, 5012, `total energy ${total} is above ${maxTotalEnergy}`);
  }
}

/**
 * A path key is a header key (12+) or a body `clientRequestId` (8+). Its alphabet is path-safe,
 * so it goes into the path as is (":" stays readable, as in the service's own `statusUrl`).
 */
function checkKey(endpoint: string, key: string): void {
  if (!isClientRequestId(key)) throw rejected(endpoint, 5009, "malformed idempotency key");
}

/**
 * The batch orchestrator: create (202 queued, 208 replay), status, cancel. Nothing is charged at
 * acceptance; each address is then activated, topped up with bandwidth and sent energy in chunks.
 */
export function createOrchestratorApi(transport: Transport) {
  const common = { family: "orchestrator", auth: "key+ip", buckets: ["orchestrator"] } as const;

  async function create(
    request: OrchestratorRequest,
  ): Promise<{ replayed: boolean; detail: OrchestratorAccepted }> {
    checkOrder(request);
    const body = request.defaults
      ? { items: request.items, defaults: request.defaults }
      : { items: request.items };
    const reply = await transport.send({
      ...common,
      endpoint: ENDPOINT_CREATE,
      method: "POST",
      path: "/apiv2/orchestrator",
      headers: { "x-idempotency-key": request.idempotencyKey },
      body,
      timeoutMs: 15_000,
      // Same key and same body is answered 208 with the original order: safe to resend.
      resendable: true,
      // One send per call: the confirm flow (core/spend/resend.ts) and the poll by key own every
      // resend of a money POST, so the transport never multiplies them.
      maxAttempts: 1,
    });
    const parsed = parseReply("orchestrator", ENDPOINT_CREATE, reply, wrap(orchestratorAcceptedSchema));
    return { replayed: reply.status === 208, detail: parsed.detail };
  }

  async function status(idempotencyKey: string, address?: string): Promise<OrchestratorStatus> {
    const endpoint = "orchestrator.status";
    checkKey(endpoint, idempotencyKey);
    if (address !== undefined && !TRON_ADDRESS.test(address)) {
      throw rejected(endpoint, 5004, "address is not a TRON address");
    }
    const reply = await transport.send({
      ...common,
      endpoint,
      method: "GET",
      path: `/apiv2/orchestrator/status/${idempotencyKey}`,
      query: { address },
      timeoutMs: 10_000,
      resendable: true,
    });
    return parseReply("orchestrator", endpoint, reply, wrap(orchestratorStatusSchema)).detail;
  }

  async function cancel(idempotencyKey: string): Promise<OrchestratorCancelled> {
    const endpoint = "orchestrator.cancel";
    checkKey(endpoint, idempotencyKey);
    const reply = await transport.send({
      ...common,
      endpoint,
      method: "POST",
      path: `/apiv2/orchestrator/cancel/${idempotencyKey}`,
      timeoutMs: 10_000,
      // Cancelling twice cancels nothing more.
      resendable: true,
    });
    return parseReply("orchestrator", endpoint, reply, wrap(orchestratorCancelSchema)).detail;
  }

  return { create, status, cancel };
}
