import { isServiceError, type ServiceError } from "../../service/errors.js";
import { toUserLine } from "../errors.js";

/**
 * One line per failed Host Mode call. Every Host Mode refusal charges nothing: cycles are charged
 * only as they are delegated, after a successful start.
 */
export type HostStep = "add" | "start" | "stop" | "status";

const KEY_CHECK = "an admin should check SERVICE_API_KEY and SERVICE_REAL_IP";

/** "-1" has several causes; the service's message tells them apart. */
const MINUS_ONE: readonly [RegExp, (address: string, message: string) => string][] = [
  [/api key|whitelist/i, () => `the service did not accept the bot's API key or IP (code -1); ${KEY_CHECK}`],
  [/address format/i, (a) => `the service says ${a} is not a valid TRC-20 address (code -1)`],
  [
    /callback url/i,
    () => "the service refused the callback URL (code -1); PUBLIC_URL must be a public http(s) address",
  ],
  [/another user/i, (a) => `${a} is registered for Host Mode by another account (code -1)`],
  [
    /retry|database error|failed to activate/i,
    (_a, m) => `the service had a temporary error (code -1: ${m}); try again`,
  ],
  [/internal server error/i, () => "the service had an internal error (code -1); try again later"],
];

/** "Insufficient balance. Required: 4.0000 TRX, available: 1.0000 TRX" → the two amounts. */
function balanceParts(message: string): { required: string; available: string } | undefined {
  const required = /required:?\s*([\d.]+)/i.exec(message)?.[1];
  const available = /available:?\s*([\d.]+)/i.exec(message)?.[1];
  return required && available ? { required, available } : undefined;
}

function negativeLine(error: ServiceError, address: string, step: HostStep): string | undefined {
  const message = error.message.replace(/[.\s]+$/, "");
  switch (error.code) {
    case -1: {
      const found = MINUS_ONE.find(([pattern]) => pattern.test(message));
      return found ? found[1](address, message) : `the service refused: ${message} (code -1)`;
    }
    case -2: {
      const parts = balanceParts(message);
      return parts
        ? `not enough balance to start Host Mode: ${parts.required} TRX required, ${parts.available} TRX available (code -2)`
        : `not enough balance to start Host Mode (code -2: ${message})`;
    }
    case -4:
      return step === "stop"
        ? `${address} is not registered for Host Mode, so there is nothing to stop (code -4)`
        : `${address} is not registered for Host Mode yet; it must be added first (code -4)`;
    case -5:
      return `Host Mode is already active for ${address} (code -5); nothing new was started`;
    case -6:
      return `${address} already has an open Host Mode order (code -6); stop it with host stop, then start again`;
    case -7:
      return `Host Mode is already inactive for ${address} (code -7); there is nothing to stop`;
  }
  return undefined;
}

function beforeEndpointLine(error: ServiceError): string | undefined {
  if (error.httpStatus === 402 || error.code === 1004) {
    return "the account balance is below the service's 4 TRX minimum (code 1004); top up first";
  }
  if (error.httpStatus === 403 || error.code === 1005)
    return `the service has blocked the bot's API key (code 1005); ${KEY_CHECK}`;
  return undefined;
}

function unknownOutcome(error: ServiceError, address: string, step: HostStep): string | undefined {
  if (error.kind !== "timeout" && error.kind !== "network" && error.kind !== "invalid_reply")
    return undefined;
  if (step === "start") {
    return `The service gave no readable answer, so it is not known whether Host Mode started for ${address}. Run host start again: if it did start, the service answers that it is already active (code -5).`;
  }
  if (step === "stop")
    return `The service gave no readable answer; run host stop ${address} again (stopping twice is harmless).`;
  if (step === "status")
    return `The service gave no readable answer to the status request for ${address}; run host status ${address} again.`;
  return `The service gave no readable answer while registering ${address}; nothing was started. Try again.`;
}

export function hostFailureLine(error: unknown, address: string, step: HostStep): string {
  if (!isServiceError(error)) return toUserLine(error);
  const unknown = unknownOutcome(error, address, step);
  if (unknown !== undefined) return unknown;
  const reason = negativeLine(error, address, step) ?? beforeEndpointLine(error);
  const what = { stop: "Not stopped", status: "No status", add: "Not started", start: "Not started" }[step];
  const charged = step === "stop" || step === "status" ? "" : " Nothing was charged.";
  if (reason !== undefined) return `${what}: ${reason}.${charged}`;
  return `${what}: ${toUserLine(error).replace(/\.$/, "")}.${charged}`;
}
