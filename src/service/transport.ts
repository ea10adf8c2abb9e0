import pRetry, { AbortError } from "p-retry";
import { type Dispatcher, request, errors as undiciErrors } from "undici";
import { withDeadline } from "../clock.js";
import { NoFreeSlotError } from "../store/rate-limit.js";
import { decodeErrorReply } from "./decode-error.js";
import { ServiceError, type ServiceFamily } from "./errors.js";
import type { RateBucket, ServiceRateLimiter } from "./rate-limits.js";
import { unlimited } from "./rate-limits.js";
import type { RawReply } from "./raw-reply.js";
import { whenWritten } from "./request-sent.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** One call to the service, described by the family module that makes it. */
export interface CallSpec {
  family: ServiceFamily;
  /** Stable label for logs, metrics and errors, e.g. `screening.create`. */
  endpoint: string;
  method: HttpMethod;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** `key`: X-API-KEY; `key+ip`: X-API-KEY and X-Real-IP; `none`: open endpoint. */
  auth: "key" | "key+ip" | "none";
  timeoutMs: number;
  buckets: readonly RateBucket[];
  /**
   * Safe to send again after a network error or timeout: reads, and money POSTs that carry an
   * idempotency key (the service recognises the repeat). A POST without one is never resent blindly.
   */
  resendable: boolean;
  /** Overrides the transport's attempts for this call (1: the caller owns every resend). */
  maxAttempts?: number;
  /**
   * Fail at once (kind `rate_limited`, code `no_free_slot`, nothing sent) instead of waiting longer
   * than this for a rate-limit slot: for reads a person is waiting on, who gets a cached copy or
   * another endpoint instead of a queue. Unset: wait for the slot.
   */
  maxLimiterWaitMs?: number;
}

export type { RawReply };

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  realIp?: string;
  dispatcher?: Dispatcher;
  limiter?: ServiceRateLimiter;
  /** Attempts for retryable failures (429, 503, resendable network errors). */
  maxAttempts?: number;
  /** Upper bound on one wait between attempts, whatever Retry-After says. */
  maxRetryWaitMs?: number;
  /** Observes every finished HTTP exchange (metrics). */
  onReply?: (spec: CallSpec, status: number | "error", durationMs: number) => void;
}

export interface Transport {
  send(spec: CallSpec): Promise<RawReply>;
  readonly apiKey: string;
}

const RETRY_STATUSES = new Set([429, 503]);
/**
 * How long after a request was written the service has surely counted it: the way there and
 * its front door, with room for a busy server. A 5-minute order is answered in 0.5 to 2 s;
 * holding its rate-limit slot until then would let through half the orders the limit allows.
 */
const ARRIVAL_BOUND_MS = 250;

export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, "");
  const limiter = options.limiter ?? unlimited;
  const maxAttempts = options.maxAttempts ?? 3;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 5_000;

  function headersFor(spec: CallSpec): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json", ...spec.headers };
    if (spec.auth !== "none") headers["x-api-key"] = options.apiKey;
    if (spec.auth === "key+ip" && options.realIp) headers["x-real-ip"] = options.realIp;
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    return headers;
  }

  function urlFor(spec: CallSpec): string {
    const url = new URL(base + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    return url.toString();
  }

  async function once(spec: CallSpec): Promise<RawReply> {
    const slot = await limiter.acquire(
      spec.buckets,
      spec.maxLimiterWaitMs === undefined ? undefined : { maxWaitMs: spec.maxLimiterWaitMs },
    );
    // The service counts the call when it arrives, which is no later than its answer, nor (see
    // ARRIVAL_BOUND_MS) than a moment after the request was written: the limiter's entry moves
    // to the earlier of the two, not to the admission, nor to a slow endpoint's late answer.
    let restamped = false;
    let bound: NodeJS.Timeout | undefined;
    const restamp = () => {
      if (restamped) return;
      restamped = true;
      void slot?.counted().catch(() => {});
    };
    const onSent = () => {
      bound = setTimeout(restamp, ARRIVAL_BOUND_MS);
    };
    try {
      return await exchange(spec, onSent);
    } finally {
      clearTimeout(bound);
      // Not waited for: the limiter's next call from here goes after it on the same connection.
      restamp();
    }
  }

  async function exchange(spec: CallSpec, onSent: () => void): Promise<RawReply> {
    const started = performance.now();
    try {
      // One deadline for the whole exchange, the body included.
      return await withDeadline(spec.timeoutMs, async (signal) => {
        const reply = await whenWritten(onSent, () =>
          request(urlFor(spec), {
            method: spec.method,
            headers: headersFor(spec),
            body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
            dispatcher: options.dispatcher,
            headersTimeout: spec.timeoutMs,
            bodyTimeout: spec.timeoutMs,
            signal,
          }),
        );
        const body = Buffer.from(await reply.body.arrayBuffer());
        options.onReply?.(spec, reply.statusCode, performance.now() - started);
        return { status: reply.statusCode, headers: reply.headers, body };
      });
    } catch (error) {
      options.onReply?.(spec, "error", performance.now() - started);
      throw transportFailure(spec, error);
    }
  }

  async function send(spec: CallSpec): Promise<RawReply> {
    let lost: ServiceError | undefined;
    try {
      return await attempts(spec, (error) => {
        lost ??= error;
      });
    } catch (error) {
      // A 429/503 speaks only for its own attempt: when an earlier one got no answer, that one may
      // have been acted on, so a POST's outcome stays unknown (the caller keeps its idempotency key).
      const refusedLater = error instanceof ServiceError && RETRY_STATUSES.has(error.httpStatus ?? 0);
      if (lost !== undefined && refusedLater && spec.method !== "GET") throw lost;
      throw error;
    }
  }

  function attempts(spec: CallSpec, onLost: (error: ServiceError) => void): Promise<RawReply> {
    return pRetry(
      async () => {
        let reply: RawReply;
        try {
          reply = await once(spec);
        } catch (error) {
          if (error instanceof NoFreeSlotError) throw new AbortError(noFreeSlot(spec, error));
          // Never resend a request the service may have acted on unless it carries an idempotency key.
          if (error instanceof ServiceError && spec.resendable) {
            onLost(error);
            throw error;
          }
          throw new AbortError(error as Error);
        }
        if (reply.status >= 400) {
          const decoded = decodeErrorReply(spec.family, spec.endpoint, reply);
          // 429 and 503 mean "not processed": safe to repeat for any call.
          if (RETRY_STATUSES.has(reply.status) && decoded.retryable) throw decoded;
          throw new AbortError(decoded);
        }
        return reply;
      },
      {
        retries: (spec.maxAttempts ?? maxAttempts) - 1,
        factor: 2,
        minTimeout: Math.min(250, maxRetryWaitMs),
        maxTimeout: maxRetryWaitMs,
        randomize: true,
        onFailedAttempt: async (error) => {
          const wait = (error as unknown as ServiceError).retryAfterMs;
          if (wait && error.retriesLeft > 0) {
            await new Promise((r) => setTimeout(r, Math.min(wait, maxRetryWaitMs)));
          }
        },
      },
    );
  }

  return { send, apiKey: options.apiKey };
}

function noFreeSlot(spec: CallSpec, error: NoFreeSlotError): ServiceError {
  return new ServiceError({
    family: spec.family,
    endpoint: spec.endpoint,
    kind: "rate_limited",
    code: "no_free_slot",
    message: `no ${spec.endpoint} call is free under the service's rate limit for ${Math.ceil(error.waitMs / 1000)} s; nothing was sent`,
    retryable: true,
    retryAfterMs: error.waitMs,
    cause: error,
  });
}

function transportFailure(spec: CallSpec, error: unknown): ServiceError {
  const timedOut =
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"));
  return new ServiceError({
    family: spec.family,
    endpoint: spec.endpoint,
    kind: timedOut ? "timeout" : "network",
    message: timedOut
      ? `the service did not answer ${spec.endpoint} within ${Math.round(spec.timeoutMs / 1000)} s`
      : `could not reach the service for ${spec.endpoint}`,
    retryable: spec.resendable,
    cause: error,
  });
}
