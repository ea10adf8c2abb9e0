import { createHash } from "node:crypto";

/**
 * Idempotency keys for money POSTs. A key is derived from what the user confirmed, so a resend
 * after a timeout, a double click or a restarted job carries the same key and the service
 * recognises the repeat instead of charging twice.
 */

/** order5m (and order1h): exactly 64 lowercase hexadecimal characters. */
const ORDER_KEY = /^[0-9a-f]{64}$/;
/** orchestrator and reports `X-Idempotency-Key`: 12 to 128 characters of A-Z a-z 0-9 . _ : - */
const REQUEST_KEY = /^[A-Za-z0-9._:-]{12,128}$/;
/** orchestrator body `clientRequestId`: the same alphabet, 8 to 128 characters. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const NOT_IN_ALPHABET = /[^A-Za-z0-9._:-]/g;

export interface EnergyOrderKeyParts {
  /** The id of the confirmation (button click, job) this order fulfils. */
  confirmationId: string;
  /**
   * The rental period. The spec warns that the service shares one key space between the 5-minute
   * and the 1-hour endpoint and answers a repeat with the first reply, so the period must be hashed.
   */
  period: "5m" | "1h";
  receiveAddress: string;
  amount: number;
}

const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** `X-Idempotency-Key` for an energy order: sha256 of a canonical, versioned text of its parts. */
export function order5mIdempotencyKey(parts: EnergyOrderKeyParts): string {
  if (!Number.isInteger(parts.amount)) throw new RangeError(`amount must be an integer, got ${parts.amount}`);
  // JSON of a fixed-order array: unambiguous whatever characters the parts contain.
  const canonical = JSON.stringify([
    "opsbot.energy-order.v1",
    parts.period,
    parts.receiveAddress,
    parts.amount,
    parts.confirmationId,
  ]);
  return sha256Hex(canonical);
}

/**
 * `X-Idempotency-Key` for orchestrator and report requests: a readable part of the seed plus a
 * digest of the whole seed, so different seeds never collide after the unsafe characters are replaced.
 */
export function requestIdempotencyKey(seed: string): string {
  if (seed.length === 0) throw new RangeError("an idempotency seed must not be empty");
  const readable = seed.replace(NOT_IN_ALPHABET, "-").slice(0, 64);
  return `${readable}:${sha256Hex(seed).slice(0, 24)}`;
}

export const isOrder5mIdempotencyKey = (key: string): boolean => ORDER_KEY.test(key);
export const isRequestIdempotencyKey = (key: string): boolean => REQUEST_KEY.test(key);
export const isClientRequestId = (id: string): boolean => CLIENT_REQUEST_ID.test(id);
