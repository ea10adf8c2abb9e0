import { z } from "zod";
import { envelopeError, parseReply } from "./decode-error.js";
import { notSent, type ServiceError } from "./errors.js";
import type { CallSpec, RawReply, Transport } from "./transport.js";
import { wrapperSchema } from "./wrapper-schema.js";

const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HOST_CALLBACK_URL_MAX = 2048;

const hostAddSchema = z.object({
  address: z.string(),
  callback_url: z.string().nullable(),
  timestamp: z.string(),
});

const hostInfinityStartSchema = z.object({
  address: z.string(),
  order_id: z.number().int(),
  mode: z.string(),
  status: z.string(),
  timestamp: z.string(),
});

const hostStopSchema = z.object({
  address: z.string(),
  orders_closed: z.number().int(),
  status: z.string(),
  timestamp: z.string(),
});

/**
 * Time Status `data`, read leniently: the spec shows `status`, `mode`, `cycles_ordered` and
 * `cycles_remaining` (null: unlimited) and the order id, and says other fields are not shown. Each
 * field is optional and kept only when it has a usable type; anything else in `data` is ignored.
 * `status` may be a word (active / inactive) or the registration's number (0: inactive).
 */
const lenient = <S extends z.ZodType>(schema: S) => schema.optional().catch(undefined);
const cycleCount = lenient(z.number().int().nonnegative().nullable());
const hostStatusSchema = z.object({
  address: lenient(z.string()),
  status: lenient(z.union([z.string(), z.number()])),
  mode: lenient(z.string().nullable()),
  cycles_ordered: cycleCount,
  cycles_remaining: cycleCount,
  order_id: lenient(z.union([z.number().int(), z.string()]).nullable()),
  timestamp: lenient(z.string()),
});

/** Every Host Mode reply is HTTP 200 with this envelope; a negative `code` is a failure. */
const hostEnvelopeSchema = z.object({
  code: z.number().int(),
  msg: z.string(),
  data: z.unknown(),
});

const hostSuccess = wrapperSchema(<S extends z.ZodType>(data: S) => z.object({ msg: z.string(), data }));

export type HostAdded = z.infer<typeof hostAddSchema>;
export type HostInfinityStarted = z.infer<typeof hostInfinityStartSchema>;
export type HostStopped = z.infer<typeof hostStopSchema>;
export type HostStatus = z.infer<typeof hostStatusSchema>;
export interface HostReply<T> {
  message: string;
  data: T;
}

export interface HostAddRequest {
  address: string;
  /** Public http(s) URL, at most 2048 characters; the service calls it on every delegation. */
  callbackUrl?: string;
  /** Start infinity mode right away when the balance covers a cycle (the reply does not say whether it did). */
  infinity?: boolean;
}

/** "Failed to activate host mode (retry)" and the database errors ask to be repeated. */
const RETRY_HINT = /retry|database error/i;

function rejected(endpoint: string, message: string): ServiceError {
  return notSent("host", endpoint, message, -1);
}

function unwrap<S extends z.ZodType>(endpoint: string, reply: RawReply, schema: S): HostReply<z.infer<S>> {
  const envelope = parseReply("host", endpoint, reply, hostEnvelopeSchema);
  if (envelope.code !== 0) {
    throw envelopeError(
      "host",
      endpoint,
      reply.status,
      envelope.code,
      envelope.msg,
      RETRY_HINT.test(envelope.msg),
    );
  }
  const success = hostSuccess(schema);
  const parsed = parseReply("host", endpoint, reply, success) as { msg: string; data: z.infer<S> };
  return { message: parsed.msg, data: parsed.data };
}

/**
 * Host Mode (continuous delegation per address, infinity mode). Negative envelope codes become
 * ServiceErrors with the spec's code and message; 402 1004, 403 1005 and 422 arrive as HTTP errors.
 */
export function createHostModeApi(transport: Transport) {
  function post(
    endpoint: string,
    path: string,
    body: Record<string, unknown>,
    resendable: boolean,
    limits: { timeoutMs?: number; maxAttempts?: number } = {},
  ) {
    const spec: CallSpec = {
      family: "host",
      endpoint,
      method: "POST",
      path,
      body,
      auth: "key+ip",
      timeoutMs: limits.timeoutMs ?? 10_000,
      ...(limits.maxAttempts !== undefined && { maxAttempts: limits.maxAttempts }),
      // The spec shows no rate limits for Host Mode.
      buckets: [],
      resendable,
    };
    return transport.send(spec);
  }

  function checkAddress(endpoint: string, address: string): void {
    if (!TRON_ADDRESS.test(address)) throw rejected(endpoint, "Invalid TRC-20 address format");
  }

  async function add(request: HostAddRequest): Promise<HostReply<HostAdded>> {
    const endpoint = "host.add";
    checkAddress(endpoint, request.address);
    if (request.callbackUrl !== undefined && request.callbackUrl.length > HOST_CALLBACK_URL_MAX) {
      throw rejected(endpoint, "Invalid callback URL. Only public HTTP/HTTPS URLs are allowed");
    }
    const body: Record<string, unknown> = { address: request.address };
    if (request.callbackUrl !== undefined) body.callback_url = request.callbackUrl;
    if (request.infinity !== undefined) body.infinity = request.infinity;
    // Adding again only updates the callback URL and never starts a second infinity order.
    const reply = await post(endpoint, "/apiv2/time/add", body, true);
    return unwrap(endpoint, reply, hostAddSchema);
  }

  async function infinityStart(address: string): Promise<HostReply<HostInfinityStarted>> {
    const endpoint = "host.infinitystart";
    checkAddress(endpoint, address);
    // Starts charging and carries no idempotency key: never resent blindly (reconcile through status).
    const reply = await post(endpoint, "/apiv2/time/infinitystart", { address }, false);
    return unwrap(endpoint, reply, hostInfinityStartSchema);
  }

  async function stop(address: string): Promise<HostReply<HostStopped>> {
    const endpoint = "host.stop";
    checkAddress(endpoint, address);
    // A repeated stop at worst answers -7 (already inactive): the wanted state.
    const reply = await post(endpoint, "/apiv2/time/stop", { address }, true);
    return unwrap(endpoint, reply, hostStopSchema);
  }

  /** Time Status (`POST /apiv2/time/status`): a read, so resent freely; -4 when the address is not registered. */
  async function status(
    address: string,
    options: { timeoutMs?: number } = {},
  ): Promise<HostReply<HostStatus>> {
    const endpoint = "host.status";
    checkAddress(endpoint, address);
    const reply = await post(endpoint, "/apiv2/time/status", { address }, true, options);
    return unwrap(endpoint, reply, hostStatusSchema);
  }

  return { add, infinityStart, stop, status };
}
