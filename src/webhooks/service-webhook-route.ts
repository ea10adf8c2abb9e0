import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../clock.js";
import type { Logger } from "../core/index.js";
import { notificationKey, parseServiceEvent, type WebhookFamily } from "../core/index.js";
import { isBodyTooLarge, readRawBody, sendJson } from "../http/server.js";
import type { Inbox, IngestReporter } from "./inbox.js";
import type { SecretSource } from "./secret-source.js";
import {
  SERVICE_SIGNATURE_HEADER,
  SERVICE_TIMESTAMP_HEADER,
  type VerifyResult,
  verifyServiceWebhook,
} from "./service-signature.js";

/**
 * `POST /webhooks/orders` and `POST /webhooks/reports`: verify the signature over the raw bytes
 * (every accepted secret, both directions of the 5-minute window), then read the body, then
 * store it in the inbox, and only then answer 2xx. A refused request writes nothing anywhere but
 * one log line.
 */
export interface ServiceWebhookDeps {
  secrets: SecretSource;
  inbox: Inbox;
  logger: Logger;
  now: Clock;
  /** Metrics: what became of each request. */
  report?: IngestReporter;
}

/** The service's bodies are small JSON documents; anything near this is not one of them. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

const REFUSALS: Record<Exclude<VerifyResult, { ok: true }>["reason"], string> = {
  missing: "webhook refused: X-Service-Signature or X-Service-Timestamp missing",
  malformed: "webhook refused: malformed X-Service-Signature or X-Service-Timestamp",
  stale: "webhook refused: timestamp more than 5 minutes old (replay, or this server's clock is wrong)",
  future:
    "webhook refused: timestamp more than 5 minutes ahead (the sender's or this server's clock is wrong)",
  mismatch:
    "webhook refused: signature matches no accepted secret; verify that the webhook secret matches (setup status, ORDER_WEBHOOK_SECRETS / REPORT_WEBHOOK_SECRETS)",
};

export function createServiceWebhookHandler(family: WebhookFamily, deps: ServiceWebhookDeps) {
  const route = `/webhooks/${family}`;

  async function verify(req: IncomingMessage, rawBody: Buffer): Promise<VerifyResult> {
    const input = {
      rawBody,
      timestampHeader: req.headers[SERVICE_TIMESTAMP_HEADER],
      signatureHeader: req.headers[SERVICE_SIGNATURE_HEADER],
    };
    const first = verifyServiceWebhook({
      ...input,
      secrets: await deps.secrets.current(family),
      nowMs: deps.now(),
    });
    if (first.ok || first.reason !== "mismatch") return first;
    const reloaded = await deps.secrets.reload(family);
    if (!reloaded) return first;
    return verifyServiceWebhook({ ...input, secrets: reloaded, nowMs: deps.now() });
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let rawBody: Buffer;
    try {
      rawBody = await readRawBody(req, MAX_WEBHOOK_BODY_BYTES);
    } catch (error) {
      const tooLarge = isBodyTooLarge(error);
      deps.logger.warn({ route, tooLarge }, "webhook refused: the body could not be read");
      deps.report?.answered(family, "rejected");
      // Not drained (far too large): the connection ends with the answer.
      if ((error as { drained?: unknown }).drained === false) res.setHeader("connection", "close");
      return sendJson(res, tooLarge ? 413 : 400, { error: tooLarge ? "body too large" : "unreadable body" });
    }
    const verified = await verify(req, rawBody);
    if (!verified.ok) {
      deps.logger.warn(
        { route, reason: verified.reason, delivery: deliveryHeader(req) },
        REFUSALS[verified.reason],
      );
      deps.report?.answered(family, "rejected");
      return sendJson(res, 401, { error: "invalid signature" });
    }
    const body = parseJson(rawBody);
    const parsed = parseServiceEvent(family, body);
    if (parsed.kind === "malformed") {
      deps.logger.warn(
        { route, reason: parsed.reason, delivery: deliveryHeader(req) },
        "webhook refused: malformed body",
      );
      deps.report?.answered(family, "rejected");
      return sendJson(res, 400, { error: "malformed body" });
    }
    if (parsed.kind === "unknown") {
      deps.logger.info(
        { route, event: parsed.eventName, deliveryId: parsed.deliveryId },
        "webhook event not known: ignored",
      );
      deps.report?.answered(family, "ignored");
      return sendJson(res, 200, { ok: true, ignored: true });
    }
    const key = notificationKey(parsed.event);
    try {
      await deps.inbox.store({ source: family, key, body, receivedAt: deps.now() }, rawBody.length);
    } catch (error) {
      // No 2xx: the service retries, and the delivery is stored on a later attempt.
      deps.logger.error(
        { route, key, err: error },
        "webhook not stored: answered 503 so the service retries",
      );
      deps.report?.answered(family, "failed");
      return sendJson(res, 503, { error: "not stored, retry" });
    }
    deps.logger.debug({ route, key, event: parsed.event.event }, "webhook stored");
    sendJson(res, 200, { ok: true });
    // After the answer: the repeat check costs the sender no time.
    await deps.report?.stored(family, key);
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The delivery id header, for the log line of a refusal (it is no secret; clipped, it comes from outside). */
function deliveryHeader(req: IncomingMessage): string | undefined {
  const value = req.headers["x-service-delivery"];
  return typeof value === "string" ? value.slice(0, 40) : undefined;
}
