import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The service's webhook signature: `X-Service-Signature: sha256=<hex>` where hex is the HMAC-SHA256 of
 * `"<X-Service-Timestamp>." + raw body`, keyed with the secret of the endpoint that received it.
 * Used by the bot's receivers to verify. The sandbox signs with its own code (src/sandbox/signature.ts);
 * both are held to the fixed vectors in test/fixtures/service-signature.json.
 */
export const SERVICE_SIGNATURE_HEADER = "x-service-signature";
export const SERVICE_TIMESTAMP_HEADER = "x-service-timestamp";
const SERVICE_SIGNATURE_TOLERANCE_MS = 300_000;

const SIGNATURE_PREFIX = "sha256=";
const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;
// Unix seconds; 12 digits is far beyond any sane clock and keeps the number exact.
const TIMESTAMP_PATTERN = /^[0-9]{1,12}$/;

/** HMAC-SHA256 over the concatenation of `parts` (strings as UTF-8), fed without copying the body. */
function hmacSha256(secret: string, parts: readonly (Buffer | string)[]): Buffer {
  const hmac = createHmac("sha256", secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** The same as hex. */
export function hmacSha256Hex(secret: string, parts: readonly (Buffer | string)[]): string {
  return hmacSha256(secret, parts).toString("hex");
}

export function signServiceWebhook(
  secret: string,
  timestampSeconds: number,
  rawBody: Buffer | string,
): string {
  return `sha256=${hmacSha256Hex(secret, [`${timestampSeconds}.`, rawBody])}`;
}

type HeaderValue = string | string[] | undefined;

export interface VerifyServiceWebhookInput {
  /** The body exactly as received: never re-serialised JSON. */
  rawBody: Buffer;
  timestampHeader: HeaderValue;
  signatureHeader: HeaderValue;
  /** Every secret currently accepted (primary, backup, the one being rotated out). */
  secrets: readonly string[];
  nowMs: number;
  toleranceMs?: number;
}

export type VerifyResult =
  | { ok: true; secretIndex: number }
  | { ok: false; reason: "missing" | "malformed" | "stale" | "future" | "mismatch" };

export function verifyServiceWebhook(input: VerifyServiceWebhookInput): VerifyResult {
  const { timestampHeader, signatureHeader } = input;
  if (!timestampHeader || !signatureHeader) return { ok: false, reason: "missing" };
  // A repeated header is not something the service sends: refuse rather than guess which one counts.
  if (typeof timestampHeader !== "string" || typeof signatureHeader !== "string") {
    return { ok: false, reason: "malformed" };
  }
  const signature = signatureHeader.trim().toLowerCase();
  if (!TIMESTAMP_PATTERN.test(timestampHeader) || !SIGNATURE_PATTERN.test(signature)) {
    return { ok: false, reason: "malformed" };
  }
  const timestamp = Number(timestampHeader);
  const skewMs = input.nowMs - timestamp * 1000;
  const toleranceMs = input.toleranceMs ?? SERVICE_SIGNATURE_TOLERANCE_MS;
  // Both directions: a far-future timestamp would otherwise stay replayable for as long as it is ahead.
  if (skewMs > toleranceMs) return { ok: false, reason: "stale" };
  if (-skewMs > toleranceMs) return { ok: false, reason: "future" };

  // Compared as the 32 bytes of the digest: the pattern above made sure of 64 hex digits.
  const received = Buffer.from(signature.slice(SIGNATURE_PREFIX.length), "hex");
  // Over the header as sent (the spec signs "<X-Service-Timestamp>." + body), not a re-printed number.
  const prefix = `${timestampHeader}.`;
  let matched = -1;
  // Every secret is tried even after a match, so timing does not tell which secret is in use.
  input.secrets.forEach((secret, index) => {
    const expected = hmacSha256(secret, [prefix, input.rawBody]);
    if (timingSafeEqual(expected, received) && matched < 0) matched = index;
  });
  return matched >= 0 ? { ok: true, secretIndex: matched } : { ok: false, reason: "mismatch" };
}
