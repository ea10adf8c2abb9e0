import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Slack request signing, version `v0`: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`
 * keyed with the signing secret. Checked over the raw bytes before anything is parsed, with a
 * constant-time compare, and the timestamp window enforced in both directions (Bolt only refuses
 * old requests; a far-future timestamp would let a captured request be replayed for longer).
 * Several secrets may be given, so a rotated secret can overlap with the old one.
 */
const SLACK_SIGNATURE_VERSION = "v0";
/** Slack's documented window: five minutes. */
const SLACK_MAX_SKEW_MS = 5 * 60_000;

export type VerifyFailure = "missing_headers" | "bad_timestamp" | "stale" | "future" | "bad_signature";
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  secrets: readonly string[];
  rawBody: Buffer | string;
  /** `X-Slack-Request-Timestamp`, seconds since the epoch. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`. */
  signature: string | undefined;
  nowMs: number;
  maxSkewMs?: number;
}

export function signSlackRequest(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${SLACK_SIGNATURE_VERSION}:${timestamp}:`);
  hmac.update(rawBody);
  return `${SLACK_SIGNATURE_VERSION}=${hmac.digest("hex")}`;
}

export function verifySlackSignature(input: VerifyInput): VerifyResult {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "bad_timestamp" };
  const skewMs = input.nowMs - Number(timestamp) * 1000;
  const maxSkewMs = input.maxSkewMs ?? SLACK_MAX_SKEW_MS;
  if (skewMs > maxSkewMs) return { ok: false, reason: "stale" };
  if (skewMs < -maxSkewMs) return { ok: false, reason: "future" };
  const given = Buffer.from(signature, "utf8");
  for (const secret of input.secrets) {
    const expected = Buffer.from(signSlackRequest(secret, timestamp, input.rawBody), "utf8");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: "bad_signature" };
}

/** The line an operator reads for a refused request: what to check, never the secret. */
export function verifyFailureHint(reason: VerifyFailure): string {
  switch (reason) {
    case "missing_headers":
      return "the request had no X-Slack-Signature or X-Slack-Request-Timestamp: it did not come from Slack";
    case "bad_timestamp":
      return "X-Slack-Request-Timestamp is not a number of seconds";
    case "stale":
    case "future":
      return "X-Slack-Request-Timestamp is more than 5 minutes away from this machine's clock: check the clock (NTP), or this is a replay";
    case "bad_signature":
      return "the signature does not match: verify that SLACK_SIGNING_SECRET is the Signing Secret under Basic Information of this Slack app";
  }
}
