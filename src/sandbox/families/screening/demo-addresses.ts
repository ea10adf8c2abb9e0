import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";

const base58check = createBase58check(sha256);

/** A valid TRON address (0x41 + 20 bytes, base58check) derived from a seed, so demos and tests stay stable. */
export function tronAddressFrom(seed: string): string {
  const digest = sha256(new TextEncoder().encode(seed));
  const payload = new Uint8Array(21);
  payload[0] = 0x41;
  payload.set(digest.subarray(0, 20), 1);
  return base58check.encode(payload);
}

/**
 * Addresses with a known behaviour in the sandbox, so a demo shows every outcome without setup:
 * a sanctioned address (high score, self-sanctioned, on the deny list), a high-risk one (mixer and
 * scam exposure), a low-risk one, one that never had activity (skipped), one that takes longer than
 * the synchronous wait, and one whose check fails.
 */
export const DEMO_ADDRESSES = {
  sanctioned: tronAddressFrom("opsbot-sandbox:sanctioned"),
  highRisk: tronAddressFrom("opsbot-sandbox:high-risk"),
  lowRisk: tronAddressFrom("opsbot-sandbox:low-risk"),
  inactive: tronAddressFrom("opsbot-sandbox:inactive"),
  slow: tronAddressFrom("opsbot-sandbox:slow"),
  failing: tronAddressFrom("opsbot-sandbox:failing"),
  usdtFrozen: tronAddressFrom("opsbot-sandbox:usdt-frozen"),
  spamSender: tronAddressFrom("opsbot-sandbox:spam-sender"),
  /** The USDT TRC-20 contract: a smart contract, blocked as a delegation target. */
  usdtContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
} as const;

/** How long the demo's slow address takes: longer than the spec's 15-second synchronous wait. */
export const DEMO_SLOW_MS = 20_000;
