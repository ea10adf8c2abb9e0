import { z } from "zod";
import { parseReply } from "./decode-error.js";
import { notSent, type ServiceError } from "./errors.js";
import { isOrder5mIdempotencyKey } from "./idempotency.js";
import type { Transport } from "./transport.js";

const ENDPOINT = "order5m.create";
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const ORDER5M_MIN_ENERGY = 61_000;
const ORDER5M_MAX_ENERGY = 650_000;

/** Money arrives as a JSON number; it stays a decimal string here so nobody does float maths on it. */
const decimalString = z.union([z.number(), z.string()]).transform((value) => String(value));

const order5mResultSchema = z.object({
  orderId: z.string(),
  paidTRX: decimalString,
  hash: z.string(),
  delegateAddress: z.string(),
  energy: z.number().int(),
  activationHash: z.string().optional(),
});

const order5mIdempotencySchema = z.object({
  status: z.string(),
  cached: z.boolean(),
  original_created_at: z.string(),
});

const order5mReplySchema = z.object({
  detail: z.object({ code: z.number().int(), msg: z.string(), data: order5mResultSchema }),
  idempotency: order5mIdempotencySchema.optional(),
});

type Order5mResult = z.infer<typeof order5mResultSchema>;
type Order5mIdempotency = z.infer<typeof order5mIdempotencySchema>;

export interface Order5mRequest {
  amount: number;
  receiveAddress: string;
  /** 64 lowercase hex, from `order5mIdempotencyKey`; always sent so a resend is recognised. */
  idempotencyKey: string;
}

export interface Order5mOutcome {
  /** True for a 208: the service answered a repeat with the original order (nothing charged again). */
  replayed: boolean;
  result: Order5mResult;
  message: string;
  idempotency?: Order5mIdempotency;
}

/** A request the service would refuse, stopped before it is sent; `code` is the one the service would give. */
function rejected(code: number | undefined, message: string): ServiceError {
  return notSent("order5m", ENDPOINT, message, code);
}

function checkRequest(request: Order5mRequest): void {
  const { amount, receiveAddress, idempotencyKey } = request;
  if (!Number.isInteger(amount) || amount < ORDER5M_MIN_ENERGY || amount > ORDER5M_MAX_ENERGY) {
    throw rejected(1003, `energy amount must be between ${ORDER5M_MIN_ENERGY} and ${ORDER5M_MAX_ENERGY}`);
  }
  if (!TRON_ADDRESS.test(receiveAddress)) throw rejected(undefined, "receiveAddress is not a TRON address");
  if (!isOrder5mIdempotencyKey(idempotencyKey)) {
    throw rejected(undefined, "the idempotency key must be 64 lowercase hexadecimal characters");
  }
}

/**
 * POST /apiv2/order5m: rents energy for 5 minutes. Errors arrive as ServiceError: 1003 range,
 * 1005 payer not configured, 1004 (403) insufficient funds, 5000, 5003 (retryable), a 409
 * `duplicate_request_processing` (retryable after `retryAfterMs`: the first call is still running).
 */
export function createOrder5mApi(transport: Transport) {
  async function create(request: Order5mRequest): Promise<Order5mOutcome> {
    checkRequest(request);
    const reply = await transport.send({
      family: "order5m",
      endpoint: ENDPOINT,
      method: "POST",
      path: "/apiv2/order5m",
      headers: { "x-idempotency-key": request.idempotencyKey },
      body: { amount: request.amount, receiveAddress: request.receiveAddress },
      auth: "key+ip",
      // The service promises an answer within 10 s, internal retries included.
      timeoutMs: 10_000,
      buckets: ["order5m"],
      // Always carries its key, so a resend after a timeout is answered from the service's cache.
      resendable: true,
      // One send per call: the confirm flow (core/spend/resend.ts) owns resends of a money POST,
      // so a lost answer costs at most two 10-second sends, not the transport's three times two.
      maxAttempts: 1,
    });
    const parsed = parseReply("order5m", ENDPOINT, reply, order5mReplySchema);
    return {
      replayed: reply.status === 208,
      result: parsed.detail.data,
      message: parsed.detail.msg,
      idempotency: parsed.idempotency,
    };
  }

  return { create };
}
