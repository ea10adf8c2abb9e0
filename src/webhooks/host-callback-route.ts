import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../clock.js";
import type { Logger } from "../core/index.js";
import { notificationKey, parseHostCallback } from "../core/index.js";
import { sendJson, sendText } from "../http/server.js";
import type { Inbox, IngestReporter } from "./inbox.js";

/**
 * `GET /callbacks/host/:token`: the service's Host Mode callbacks. They are unsigned; the secret
 * is the token in the path, compared in constant time. A wrong token answers exactly what an
 * unknown path answers (404 "not found"), so the route does not even confirm it exists. The
 * token is never logged: log lines name the route pattern, never the path.
 */
export interface HostCallbackDeps {
  /** HOST_CALLBACK_TOKEN, or the one generated and kept in the store. */
  token: string;
  inbox: Inbox;
  logger: Logger;
  now: Clock;
  /** Metrics: what became of each request. */
  report?: IngestReporter;
}

const ROUTE = "/callbacks/host/:token";

/** Hashing first makes both sides the same length, so neither the length nor a prefix leaks. */
const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected)) && expected.length > 0;
}

export function createHostCallbackHandler(deps: HostCallbackDeps) {
  return async (req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> => {
    if (!tokenMatches(params.token ?? "", deps.token)) {
      deps.logger.warn({ route: ROUTE }, "Host Mode callback refused: wrong token");
      deps.report?.answered("host", "rejected");
      return sendText(res, 404, "not found");
    }
    const query = Object.fromEntries(new URL(req.url ?? "/", "http://bot").searchParams);
    const parsed = parseHostCallback(query);
    if (parsed.kind === "malformed") {
      deps.logger.warn(
        { route: ROUTE, reason: parsed.reason },
        "Host Mode callback refused: malformed parameters",
      );
      deps.report?.answered("host", "rejected");
      return sendJson(res, 400, { error: "malformed callback" });
    }
    if (parsed.kind === "unknown") {
      deps.logger.info(
        { route: ROUTE, event: parsed.eventName },
        "Host Mode callback event not known: ignored",
      );
      deps.report?.answered("host", "ignored");
      return sendJson(res, 200, { ok: true, ignored: true });
    }
    const key = notificationKey(parsed.event);
    try {
      await deps.inbox.store(
        { source: "host", key, body: query, receivedAt: deps.now() },
        req.url?.length ?? 0,
      );
    } catch (error) {
      deps.logger.error(
        { route: ROUTE, key, err: error },
        "Host Mode callback not stored: answered 503 so the service retries",
      );
      deps.report?.answered("host", "failed");
      return sendJson(res, 503, { error: "not stored, retry" });
    }
    deps.logger.debug({ route: ROUTE, key }, "Host Mode callback stored");
    sendJson(res, 200, { ok: true });
    await deps.report?.stored("host", key);
  };
}
