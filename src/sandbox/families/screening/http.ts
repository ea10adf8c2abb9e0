import type { AccountBook, AuthResult, SandboxAccount } from "../../accounts.js";
import type { SandboxReply, SandboxRequest } from "../../router.js";
import { v1Time } from "./format.js";

/** Results of a screening are private: never cached by a proxy (spec rule 3 of the v2 order). */
export const NO_STORE = { "cache-control": "private, no-store" };

const TITLES: Record<number, string> = {
  4001: "Invalid request",
  4002: "Provider not available",
  4003: "Invalid order identifier",
  4004: "Network not supported by provider",
  4010: "API key required",
  4011: "API key or IP not accepted",
  4020: "Insufficient balance",
  4040: "Order not found",
  5030: "Provider unavailable",
};

/** RFC 9457 problem+json, the version 2 error shape. */
export function problem(req: SandboxRequest, status: number, code: number, detail: string): SandboxReply {
  return {
    status,
    json: {
      type: `https://sandbox.opsbot.test/problems/screening/${code}`,
      title: TITLES[code] ?? "Error",
      status,
      detail,
      instance: req.path,
      code,
    },
    headers: { "content-type": "application/problem+json" },
  };
}

/** Version 1 error envelope. */
export const v1Error = (status: number, code: number, msg: string, now: number): SandboxReply => ({
  status,
  json: { success: false, error: { code, msg }, timestamp: v1Time(now) },
});

/** Version 1 success envelope. */
export const v1Ok = (data: unknown, now: number, headers?: Record<string, string>): SandboxReply => ({
  status: 200,
  json: { success: true, data, timestamp: v1Time(now) },
  headers,
});

export type Authed = { account: SandboxAccount } | { reply: SandboxReply };

/** Version 1: 401 `{detail:{code:-1,msg}}`. The spec names no IP whitelist for v1, so none is checked. */
export function authV1(accounts: AccountBook, req: SandboxRequest): Authed {
  const result = accounts.authenticate(req, { checkIp: false });
  if (result.ok) return { account: result.account };
  const msg = result.reason === "missing" ? "API key not provided" : "Invalid API key";
  return { reply: { status: 401, json: { detail: { code: -1, msg } } } };
}

/** Key check plus the key's IP whitelist when it has one ("the key may be bound to an IP whitelist"). */
export function authWithWhitelist(accounts: AccountBook, req: SandboxRequest): AuthResult {
  const result = accounts.authenticate(req, { checkIp: false });
  if (result.ok && result.account.realIps.length > 0 && !result.account.realIps.includes(req.ip)) {
    return { ok: false, reason: "ip" };
  }
  return result;
}

/** Version 2: 401 problem+json 4010 (no key) or 4011 (key or IP not accepted). */
export function authV2(accounts: AccountBook, req: SandboxRequest): Authed {
  const result = authWithWhitelist(accounts, req);
  if (result.ok) return { account: result.account };
  if (result.reason === "missing") return { reply: problem(req, 401, 4010, "X-API-KEY header is required") };
  const detail =
    result.reason === "ip" ? "the caller's IP is not whitelisted for this key" : "API key not accepted";
  return { reply: problem(req, 401, 4011, detail) };
}

export const headerValue = (req: SandboxRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};
