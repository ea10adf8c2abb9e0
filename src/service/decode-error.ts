import type { z } from "zod";
import { ServiceError, type ServiceFamily } from "./errors.js";
import type { RawReply } from "./raw-reply.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return body.toString("utf8").slice(0, 200);
  }
}

function header(reply: RawReply, name: string): string | undefined {
  const value = reply.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After in seconds or as an HTTP date, or a body's `retry_after_seconds`. */
function retryAfterMs(reply: RawReply, body: unknown): number | undefined {
  const raw = header(reply, "retry-after");
  if (raw !== undefined) {
    const seconds = Number(raw);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(raw);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  if (isObject(body) && typeof body.retry_after_seconds === "number") return body.retry_after_seconds * 1000;
  return undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined;

const codeOf = (value: unknown): number | string | undefined =>
  typeof value === "number" || typeof value === "string" ? value : undefined;

/** FastAPI-style 422 `detail` array → "field: message" lines. */
function validationDetails(detail: unknown[]): string[] {
  return detail.map((item) => {
    if (!isObject(item)) return String(item);
    const where = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body").join(".") : "";
    const msg = text(item.msg) ?? "invalid";
    return where ? `${where}: ${msg}` : msg;
  });
}

interface Decoded {
  code?: number | string;
  message?: string;
  details?: string[];
}

/** Reads every error shape the spec documents, whichever family sent it. */
function readShape(body: unknown): Decoded {
  if (!isObject(body)) return { message: text(body) };
  // RFC 9457 problem+json (screening v2)
  if (text(body.title) !== undefined && "status" in body) {
    return { code: codeOf(body.code), message: text(body.detail) ?? text(body.title) };
  }
  // v1 AML: {success:false, error:{code, msg|message}}
  if (isObject(body.error)) {
    return { code: codeOf(body.error.code), message: text(body.error.msg) ?? text(body.error.message) };
  }
  // order5m 409: {success:false, error:"duplicate_request_processing", message, retry_after_seconds}
  if (typeof body.error === "string") return { code: body.error, message: text(body.message) };
  // {detail:{code,msg}}, {detail:"text"}, {detail:[…]} (422)
  if (isObject(body.detail)) {
    const detail = body.detail;
    const errors =
      isObject(detail.data) && Array.isArray(detail.data.errors) ? detail.data.errors : undefined;
    return {
      code: codeOf(detail.code),
      message: text(detail.msg) ?? text(detail.message),
      details: errors ? validationDetails(errors) : undefined,
    };
  }
  if (typeof body.detail === "string") return { message: body.detail };
  if (Array.isArray(body.detail)) {
    const details = validationDetails(body.detail);
    return { message: details.join("; "), details };
  }
  // compliance / report webhooks / userinfo / host: {code, msg|message}; 429: {message}
  return { code: codeOf(body.code), message: text(body.msg) ?? text(body.message) };
}

const RETRYABLE_CODES = new Set<number | string>([5003, 5030, "duplicate_request_processing", 5011]);

/** Turns a non-2xx reply into a ServiceError with the spec's code, message and retry hints. */
export function decodeErrorReply(family: ServiceFamily, endpoint: string, reply: RawReply): ServiceError {
  const body = parseBody(reply.body);
  const shape = readShape(body);
  const status = reply.status;
  const rateLimited = status === 429;
  const retryable =
    rateLimited || status === 503 || (shape.code !== undefined && RETRYABLE_CODES.has(shape.code));
  return new ServiceError({
    family,
    endpoint,
    kind: rateLimited ? "rate_limited" : "http",
    httpStatus: status,
    code: shape.code,
    message: shape.message ?? `the service answered HTTP ${status}`,
    retryable,
    retryAfterMs: retryAfterMs(reply, body),
    details: shape.details,
  });
}

/** Error for an envelope that says failure inside an HTTP 200 (Host Mode negative codes). */
export function envelopeError(
  family: ServiceFamily,
  endpoint: string,
  status: number,
  code: number | string,
  message: string,
  retryable = false,
): ServiceError {
  return new ServiceError({ family, endpoint, kind: "http", httpStatus: status, code, message, retryable });
}

/** Parses a 2xx JSON body with its zod schema; a mismatch is an `invalid_reply` error. */
export function parseReply<S extends z.ZodType>(
  family: ServiceFamily,
  endpoint: string,
  reply: RawReply,
  schema: S,
): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(reply.body.toString("utf8"));
  } catch (cause) {
    throw new ServiceError({
      family,
      endpoint,
      kind: "invalid_reply",
      httpStatus: reply.status,
      message: `the service sent a reply to ${endpoint} that is not JSON`,
      retryable: false,
      cause,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ServiceError({
      family,
      endpoint,
      kind: "invalid_reply",
      httpStatus: reply.status,
      message: `the service's reply to ${endpoint} does not match the spec: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
      retryable: false,
    });
  }
  return parsed.data;
}
