import { randomBytes } from "node:crypto";
import { isServiceError, type ServiceError } from "../service/errors.js";
import type { Logger } from "./logger.js";

/**
 * An error whose message is already the line the user should read (bad input a command found
 * late, a specific service outcome such as "nothing was charged"). Commands throw it, or catch a
 * ServiceError and rethrow one with a more precise line: the core shows `line` as it is.
 */
export class UserError extends Error {
  override readonly name = "UserError";
  readonly code: string;
  readonly line: string;

  constructor(line: string, options: { code?: string; cause?: unknown } = {}) {
    super(line, options.cause === undefined ? undefined : { cause: options.cause });
    this.line = line;
    this.code = options.code ?? "user_error";
  }
}

const isUserError = (error: unknown): error is UserError => error instanceof UserError;

/** A short id that ties the line a user sees to the full log record. */
const errorRef = (): string => randomBytes(4).toString("hex");

const MAX_SERVICE_MESSAGE = 200;

const clip = (message: string): string =>
  message.length > MAX_SERVICE_MESSAGE ? `${message.slice(0, MAX_SERVICE_MESSAGE - 1)}…` : message;

const codeSuffix = (error: ServiceError): string =>
  error.code === undefined ? ` (HTTP ${error.httpStatus})` : ` (code ${error.code})`;

/**
 * The generic line for a failed service call. It never claims what the call did not prove: a
 * timeout does not say "nothing was charged", because for a money POST that is unknown here;
 * a command that knows better throws a UserError with its own line.
 */
function serviceLine(error: ServiceError, ref: string): string {
  switch (error.kind) {
    case "rate_limited": {
      const wait =
        error.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
      return `The service is busy (rate limit); try again in ${wait === undefined ? "a few seconds" : `${wait} s`}.`;
    }
    case "timeout":
      return "The service did not answer in time; try again in a moment.";
    case "network":
      return "Could not reach the service; try again in a moment.";
    case "invalid_reply":
      return `The service sent a reply the bot could not read (ref ${ref}); the details are in the log.`;
    case "http":
      return httpLine(error);
    case "not_sent":
      return `Not sent: ${clip(error.message.replace(/[.\s]+$/, ""))}.`;
  }
}

function httpLine(error: ServiceError): string {
  const status = error.httpStatus ?? 0;
  if (status === 401) {
    return "The service did not accept the bot's API key or IP address; an admin should check SERVICE_API_KEY and SERVICE_REAL_IP.";
  }
  if (status >= 500) return `The service had a problem (HTTP ${status}); try again later.`;
  const message = clip(error.message.replace(/[.\s]+$/, ""));
  const joined = error.details.join("; ");
  // 422 replies often repeat their details as the message: say them once.
  const details = joined && !error.message.includes(joined) ? ` ${clip(joined)}.` : "";
  if (status === 402) return `Not enough balance on the service account: ${message}${codeSuffix(error)}.`;
  return `The service refused: ${message}${codeSuffix(error)}.${details}`;
}

/**
 * The one line a user sees for any error. `ref` is used where the user must be able to point at
 * the log (unknown errors, unreadable replies); pass the ref you log the error with.
 */
export function toUserLine(error: unknown, ref: string = errorRef()): string {
  if (isUserError(error)) return error.line;
  if (isServiceError(error)) return serviceLine(error, ref);
  return `Something went wrong (ref ${ref}); the details are in the log.`;
}

/** The fields an operator needs to find and fix the cause, for the log record. */
function toLogFields(error: unknown): Record<string, unknown> {
  if (isServiceError(error)) {
    return {
      err: error,
      family: error.family,
      endpoint: error.endpoint,
      kind: error.kind,
      httpStatus: error.httpStatus,
      code: error.code,
      retryAfterMs: error.retryAfterMs,
    };
  }
  if (isUserError(error)) return { code: error.code, line: error.line };
  return { err: error };
}

/**
 * Logs an error (level by who must act: the user, the service, or us) and returns the user's line.
 * Unknown errors are logged at `error` with the same ref the user sees.
 */
export function reportError(logger: Logger, error: unknown, context: Record<string, unknown> = {}): string {
  const ref = errorRef();
  const line = toUserLine(error, ref);
  const fields = { ...context, ...toLogFields(error), ref };
  if (isUserError(error)) logger.info(fields, "command refused");
  else if (isServiceError(error) && error.kind !== "invalid_reply")
    logger.warn(fields, "service call failed");
  else logger.error(fields, "command failed");
  return line;
}
