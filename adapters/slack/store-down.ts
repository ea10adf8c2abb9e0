import type { Logger } from "../../src/core/index.js";
import { STORE_UNAVAILABLE_LINE } from "../../src/core/index.js";
import type { SlackBody } from "./gate.js";
import type { ResponsePayload, ResponseUrls } from "./response-url.js";

/**
 * What a Slack request gets when its once-only mark could not be written (the store is down or
 * too slow): nothing runs, and the user is told so in one line within Slack's 3 seconds. A slash
 * command's acknowledgement carries the line (Slack shows an ack's body to the user); a click's
 * acknowledgement body is ignored by Slack, so the line goes to its `response_url`. Events are
 * not acknowledged (503): Slack sends them again later, and nobody waits on them.
 */
export type StoreDownAnswer =
  | { kind: "command"; ack: ResponsePayload }
  | { kind: "action"; followUp: () => Promise<void> }
  | { kind: "retry" };

const LINE: ResponsePayload = {
  text: STORE_UNAVAILABLE_LINE,
  response_type: "ephemeral",
  replace_original: false,
};

/**
 * The line for a command or a click already acknowledged (its once-only mark is taken after the
 * ack): it goes to the request's `response_url`, privately.
 */
export async function storeDownFollowUp(
  body: SlackBody,
  responses: ResponseUrls,
  logger: Logger,
): Promise<void> {
  const url = typeof body.response_url === "string" ? body.response_url : undefined;
  if (!responses.allows(url)) return;
  await responses.post(url, LINE).catch((error: unknown) => {
    logger.warn({ err: error }, "could not tell a Slack user that the store is unavailable");
  });
}

export function storeDownAnswer(body: SlackBody, responses: ResponseUrls, logger: Logger): StoreDownAnswer {
  if (typeof body.command === "string")
    return { kind: "command", ack: { text: LINE.text, response_type: "ephemeral" } };
  if (body.type !== "block_actions") return { kind: "retry" };
  return { kind: "action", followUp: () => storeDownFollowUp(body, responses, logger) };
}
