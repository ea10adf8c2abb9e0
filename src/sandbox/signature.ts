import { createHmac } from "node:crypto";

/**
 * How the simulated service signs a webhook, written from the spec and not shared with the bot's
 * verifier (src/webhooks/service-signature.ts), so a wrong scheme cannot be wrong on both sides.
 * energy-hostmode-pricing-reports-webhooks.md, Events: "Signature: hex HMAC-SHA256 of the text
 * `<timestamp>.` followed by the raw body, keyed with the secret of the endpoint that received the
 * request" and "`X-Service-Timestamp` (unix seconds), `X-Service-Signature` (`sha256=<hex>`)".
 * Both sides are checked against the same fixed vectors (test/fixtures/service-signature.json).
 */
export function signWebhookBody(secret: string, timestampSeconds: number, rawBody: Buffer | string): string {
  const hex = createHmac("sha256", secret).update(`${timestampSeconds}.`).update(rawBody).digest("hex");
  return `sha256=${hex}`;
}
