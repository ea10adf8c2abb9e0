import { createHash, randomBytes } from "node:crypto";
import { createBase58check } from "@scure/base";
import { SUN_PER_TRX } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { isRecord, json, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";

export const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest());
const base58check = createBase58check(sha256);

/**
 * A checksummed TRON address (0x41 + 20 bytes). With a seed the same seed always gives the same
 * address, so tests and the demo can name addresses; without one it is random.
 */
export function tronAddress(seed?: string | number): string {
  const body = seed === undefined ? randomBytes(20) : sha256(new TextEncoder().encode(`addr:${seed}`));
  const bytes = new Uint8Array(21);
  bytes[0] = 0x41;
  bytes.set(body.subarray(0, 20), 1);
  return base58check.encode(bytes);
}

/** A transaction hash: 64 lowercase hex characters. */
export const txHash = (): string => randomBytes(32).toString("hex");

/** ISO 8601 with an explicit `+00:00` offset (the orchestrator's timestamps). */
export const isoOffset = (ms: number): string => new Date(ms).toISOString().replace("Z", "+00:00");
export const isoUtc = (ms: number): string => new Date(ms).toISOString();

/** Integer SUN as TRX with 4 decimals, truncated (no float maths on money). */
export function trx4(sun: number): string {
  const whole = Math.floor(sun / SUN_PER_TRX);
  const fraction = String(sun % SUN_PER_TRX)
    .padStart(6, "0")
    .slice(0, 4);
  return `${whole}.${fraction}`;
}

/** Resolves after `ms` on the sandbox's timers, so nothing fires after the sandbox closed. */
export const wait = (ctx: SandboxContext, ms: number): Promise<void> =>
  new Promise((resolve) => ctx.timers.after(ms, resolve));

/** `{detail: {code, msg, ...}}`, the error and success shape of order5m and the orchestrator. */
export const detailReply = (
  status: number,
  code: number,
  msg: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): SandboxReply => json(status, { detail: { code, msg, ...extra } }, headers);

/** FastAPI-style 422: `detail` is an array of `{loc, msg, type}`, no code. */
export const validationReply = (
  problems: Array<{ loc: Array<string | number>; msg: string }>,
): SandboxReply =>
  json(422, { detail: problems.map((p) => ({ loc: ["body", ...p.loc], msg: p.msg, type: "value_error" })) });

/** The JSON body as an object; `undefined` when it is missing, not JSON or not an object. */
export function bodyObject(req: SandboxRequest): Record<string, unknown> | undefined {
  const body = readJson(req);
  return isRecord(body) ? body : undefined;
}

export function headerValue(req: SandboxRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Canonical JSON (sorted keys) to compare two bodies for "same body". */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Splits `amount` into `parts` whole chunks that differ by at most one unit. */
export function evenChunks(amount: number, parts: number): number[] {
  const base = Math.floor(amount / parts);
  const extra = amount % parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}
