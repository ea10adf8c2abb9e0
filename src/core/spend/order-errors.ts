import { isServiceError, type ServiceError } from "../../service/errors.js";
import { toUserLine } from "../errors.js";

/**
 * One line per failed order that says what happened and whether anything was charged (the lines
 * both routes share, and the orchestrator's: energy orders and payout runs both place one).
 * A refusal (4xx, 503, 429) charged nothing; a timeout or an internal error leaves it unknown,
 * and the line says how to find out instead of guessing.
 */
export const NOTHING = "Nothing was charged.";
const KEY_CHECK = "an admin should check SERVICE_API_KEY and SERVICE_REAL_IP";

const waitHint = (error: ServiceError): string => {
  const seconds =
    error.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
  return seconds === undefined ? "in a few seconds" : `in ${seconds} s`;
};

export const said = (error: ServiceError): string => error.message.replace(/[.\s]+$/, "");

/** Shared by both routes: rate limits, authentication, a blocked key, unreadable replies. */
export function commonLine(error: ServiceError): string | undefined {
  if (error.kind === "rate_limited")
    return `Not ordered: the service is busy (rate limit). ${NOTHING} Try again ${waitHint(error)}.`;
  if (error.kind === "invalid_reply") {
    return `The service's reply could not be read, so the order may have been placed; check balance before ordering again. (${toUserLine(error)})`;
  }
  if (error.httpStatus === 401)
    return `Not ordered: the service did not accept the bot's API key or IP (HTTP 401); ${KEY_CHECK}. ${NOTHING}`;
  if (error.httpStatus === 403 && error.code === 1005) {
    return `Not ordered: the service has blocked the bot's API key (code 1005); ${KEY_CHECK}. ${NOTHING}`;
  }
  return undefined;
}

export function orchestratorFailureLine(error: unknown): string {
  if (!isServiceError(error)) return toUserLine(error);
  if (orchestratorOutcomeUnknown(error)) {
    return "It is not known whether the orchestrator accepted the order (no readable answer, even after one retry with the same idempotency key); I will look it up by its key and post what I find here.";
  }
  // 5011 arrives as HTTP 429: it means orders in flight, not the request rate.
  if (error.code === 5011 || (error.httpStatus === 429 && error.code !== undefined)) {
    return `Not ordered: too many orchestrator orders or addresses are in flight (code ${error.code}; at most 3 orders and 300 addresses). ${NOTHING} Try again when one has finished.`;
  }
  const common = commonLine(error);
  if (common !== undefined) return common;
  switch (error.code) {
    case 1004:
      return `Not ordered: the account balance is below the service's 4 TRX minimum (code 1004). ${NOTHING} Top up, then run energy again.`;
    case 5003:
      return "Not ordered: the orchestrator is temporarily unavailable (code 5003); nothing was stored or charged. Try again in a few seconds.";
    case 4090:
      return "Not ordered: this confirmation's idempotency key was already used for a different order (code 4090 IDEMPOTENCY_CONFLICT). Nothing new was charged.";
  }
  const code = error.code === undefined ? `HTTP ${error.httpStatus}` : `code ${error.code}`;
  return `Not ordered: the orchestrator refused the order (${code}: ${said(error)}). ${NOTHING}`;
}

/** Failures after which the order may exist on the service: worth looking up by its key. */
export function orchestratorOutcomeUnknown(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === "timeout" || error.kind === "network" || error.kind === "invalid_reply") return true;
  return error.kind === "http" && (error.httpStatus ?? 0) >= 500 && error.code !== 5003;
}
