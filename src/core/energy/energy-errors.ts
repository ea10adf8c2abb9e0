import { isServiceError } from "../../service/errors.js";
import { toUserLine } from "../errors.js";
import { commonLine, NOTHING, said } from "../spend/order-errors.js";

/** One line per failed 5-minute order: what happened and whether anything was charged. */
export function order5mFailureLine(error: unknown): string {
  if (!isServiceError(error)) return toUserLine(error);
  const common = commonLine(error);
  if (common !== undefined) return common;
  if (error.kind === "timeout" || error.kind === "network") {
    return "The service did not answer, even after one retry with the same idempotency key, so it is not known whether the order was placed; check balance before ordering again (a repeat of this confirmation can never charge twice).";
  }
  switch (error.code) {
    case 1004:
      return `Not ordered: insufficient funds on the service account (code 1004). ${NOTHING} Top up the deposit address, then run energy again.`;
    case 1003:
      return `Not ordered: the service refused the amount (code 1003: ${said(error)}). ${NOTHING}`;
    case 1005:
      return `Not ordered: the service account has no payer address configured (code 1005); an admin must set it on the service. ${NOTHING}`;
    case 5003:
      return `Not ordered: the energy pools are at capacity (code 5003). ${NOTHING} Try again in a few seconds.`;
    case "duplicate_request_processing":
      return "The service is still processing this order (duplicate_request_processing); it is not known yet whether it was placed. Check balance in a minute before ordering again.";
  }
  if ((error.httpStatus ?? 0) >= 500) {
    return `The service had an internal error (${error.code === undefined ? `HTTP ${error.httpStatus}` : `code ${error.code}`}), so it is not known whether the order was placed; check balance before ordering again.`;
  }
  return `Not ordered: ${toUserLine(error).replace(/\.$/, "")}. ${NOTHING}`;
}
