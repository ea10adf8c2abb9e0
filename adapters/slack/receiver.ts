import type { IncomingMessage, ServerResponse } from "node:http";
import type { HTTPReceiver } from "@slack/bolt";
import type { Clock } from "../../src/clock.js";
import type { Logger } from "../../src/core/index.js";
import {
  type HttpRoute,
  isBodyTooLarge,
  readRawBody,
  sendJson,
  sendText,
  sendTooLarge,
} from "../../src/http/server.js";
import { STORE_ANSWER_TIMEOUT_MS, storeWithin } from "../../src/store/bounded.js";
import { type Admission, parseSlackBody, type SlackGate } from "./gate.js";
import { startClaim } from "./once-only.js";
import type { ResponseUrls } from "./response-url.js";
import { storeDownAnswer } from "./store-down.js";
import { verifyFailureHint, verifySlackSignature } from "./verify.js";

/**
 * `POST /slack/events` on the bot's one HTTP server. Our route reads the raw bytes, verifies the
 * signature (both ends of the 5-minute window), checks the workspace and claims the request's
 * identity (a command or a click: starts the claim, which its listener awaits after the ack); only
 * then does Bolt's HTTPReceiver get the request (its `requestListener`, with the
 * bytes already buffered), parse it, ack it and run the listeners. Bolt's own signature check is
 * off because ours ran on the same bytes and is the stricter one; nothing else reaches Bolt.
 */
export const SLACK_EVENTS_PATH = "/slack/events";
/** Slack's payloads are small; a large body is not Slack. */
const SLACK_MAX_BODY_BYTES = 1_048_576;
const FORM = "application/x-www-form-urlencoded";
/**
 * Slack waits 3 s for the ack: a store that does not answer by then gets the user the line
 * "storage is unavailable; nothing was done", not a hang or a bare error.
 */
const GATE_TIMEOUT_MS = STORE_ANSWER_TIMEOUT_MS;

export interface EventsRouteOptions {
  receiver: Pick<HTTPReceiver, "requestListener">;
  signingSecrets: readonly string[];
  gate: SlackGate;
  /** Where a click's "storage is unavailable" line goes (its response_url, when allowed). */
  responses: ResponseUrls;
  logger: Logger;
  now: Clock;
  /** False while shutting down: new requests get 503 and Slack shows the user an error. */
  accepting: () => boolean;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function createEventsRoute(options: EventsRouteOptions): HttpRoute {
  return {
    method: "POST",
    path: SLACK_EVENTS_PATH,
    handler: (req, res) => handle(req, res, options),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: EventsRouteOptions): Promise<void> {
  if (!options.accepting()) return sendText(res, 503, "shutting down");
  let raw: Buffer;
  try {
    raw = await readRawBody(req, SLACK_MAX_BODY_BYTES);
  } catch (error) {
    return isBodyTooLarge(error) ? sendTooLarge(res, error) : sendText(res, 400, "unreadable body");
  }
  const contentType = header(req, "content-type");
  // Slack's certificate check is unsigned by design; it is answered and nothing else is read.
  if (contentType?.startsWith(FORM) && new URLSearchParams(raw.toString("utf8")).get("ssl_check") === "1") {
    return sendText(res, 200, "");
  }
  const verdict = verifySlackSignature({
    secrets: options.signingSecrets,
    rawBody: raw,
    timestamp: header(req, "x-slack-request-timestamp"),
    signature: header(req, "x-slack-signature"),
    nowMs: options.now(),
  });
  if (!verdict.ok) {
    options.logger.warn(
      { reason: verdict.reason },
      `refused a Slack request: ${verifyFailureHint(verdict.reason)}`,
    );
    return sendText(res, 401, "invalid signature");
  }
  const body = parseSlackBody(raw, contentType);
  if (body === undefined) return sendText(res, 400, "unreadable body");
  if (claimedAfterAck(body)) {
    const refusal = options.gate.refusal(body);
    if (refusal !== undefined && !refusal.ok) return refuse(refusal, res, options);
    startClaim(req, storeWithin(options.gate.claim(body), GATE_TIMEOUT_MS));
  } else if (!(await admitted(body, res, options))) return;
  // Bolt reads `rawBody` instead of the (already consumed) stream, and wants the bare form type.
  if (contentType?.startsWith(FORM)) req.headers["content-type"] = FORM;
  Object.assign(req, { rawBody: raw });
  options.receiver.requestListener(req, res);
}

/**
 * A slash command or a click is acked without waiting on the store: its once-only mark is claimed
 * meanwhile and its listener awaits it before running (`once-only.ts`). Anything else (events) is
 * gated whole first, so a store that is down leaves it unacknowledged and Slack sends it again.
 */
const claimedAfterAck = (body: Record<string, unknown>): boolean =>
  typeof body.command === "string" || body.type === "block_actions";

async function admitted(body: Record<string, unknown>, res: ServerResponse, options: EventsRouteOptions) {
  let admission: Admission;
  try {
    admission = await storeWithin(options.gate.admit(body), GATE_TIMEOUT_MS);
  } catch (error) {
    options.logger.error(
      { err: error },
      "could not check a Slack request against the store; nothing was run",
    );
    answerStoreDown(body, res, options);
    return false;
  }
  if (admission.ok) return true;
  refuse(admission, res, options);
  return false;
}

function refuse(
  admission: Exclude<Admission, { ok: true }>,
  res: ServerResponse,
  options: EventsRouteOptions,
): void {
  if (admission.reason === "other_team") {
    options.logger.warn(
      { team: admission.team },
      "refused a Slack request from another workspace than SLACK_TEAM_ID: the app is installed there too, or SLACK_TEAM_ID is wrong",
    );
    sendText(res, 403, "workspace not served");
    return;
  }
  // A retry of a request already taken: acknowledge it so Slack stops, and run nothing.
  options.logger.info({ identity: admission.identity }, "Slack re-sent a request already handled; ignored");
  sendText(res, 200, "");
}

/** Nothing ran: a command or a click is told so (and acknowledged), an event is left for Slack to resend. */
function answerStoreDown(
  body: Record<string, unknown>,
  res: ServerResponse,
  options: EventsRouteOptions,
): void {
  const answer = storeDownAnswer(body, options.responses, options.logger);
  if (answer.kind === "retry") sendText(res, 503, "store unavailable");
  else if (answer.kind === "command") sendJson(res, 200, answer.ack);
  else {
    sendText(res, 200, "");
    void answer.followUp();
  }
}
