import type { SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { json, type SandboxReply, type SandboxRequest } from "../../router.js";

/** Helpers shared by the account family's routes (pricing, userinfo, sub-users, reports, registries). */

export type AuthFailure = "missing" | "invalid" | "ip" | "blocked";

/**
 * X-API-KEY plus a whitelisted X-Real-IP. A blocked key answers the same everywhere (403 code 1005,
 * "before the endpoint runs"); every other failure is shaped by the caller's family.
 */
export function authenticate(
  ctx: SandboxContext,
  req: SandboxRequest,
  onFailure: (reason: Exclude<AuthFailure, "blocked">) => SandboxReply,
): SandboxAccount | SandboxReply {
  const result = ctx.accounts.authenticate(req, { checkIp: true });
  if (result.ok) return result.account;
  if (result.reason === "blocked") return blockedReply();
  return onFailure(result.reason);
}

export const isReply = (value: SandboxAccount | SandboxReply): value is SandboxReply =>
  "status" in value && !("apiKey" in value);

const blockedReply = (): SandboxReply => json(403, { detail: { code: 1005, msg: "API key is blocked" } });

export const lowBalanceReply = (balanceSun: number): SandboxReply =>
  json(402, {
    detail: {
      code: 1004,
      msg: `Insufficient balance: at least 4 TRX required, available ${(balanceSun / 1_000_000).toFixed(6)} TRX`,
    },
  });

export interface FieldError {
  field: string;
  msg: string;
}

/** The spec's body validation failure: 422 with a FastAPI-style `detail` array and no code. */
export const validationReply = (errors: FieldError[]): SandboxReply =>
  json(422, {
    detail: errors.map((e) => ({ loc: ["body", ...e.field.split(".")], msg: e.msg, type: "value_error" })),
  });

export const isoTime = (ms: number): string => new Date(ms).toISOString();

/** `YYYY-MM-DD HH:MM:SS` in UTC, the userinfo timestamp format. */
export const utcDateTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

export function headerValue(req: SandboxRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A random id of `length` characters from upper-case letters and digits. */
export function upperId(length: number): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}
