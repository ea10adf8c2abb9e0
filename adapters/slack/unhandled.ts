import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import type { Logger } from "../../src/core/index.js";
import { FORM_CALLBACK_ID } from "./forms.js";

/**
 * Signed interactive payloads the bot has no listener for (a global or message shortcut, a
 * modal closed, `block_actions` without actions, another app's view): acknowledged at once and
 * logged in one line. Left to Bolt, each would hold the request until its 3 s timeout and then
 * answer 404, and a payload with no action would reach the button listener and throw.
 */
export function ackUnhandled(logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    const why = ack === undefined ? undefined : unhandledReason(args.body as Record<string, unknown>);
    if (why === undefined || ack === undefined) return args.next();
    logger.info(
      { type: clip((args.body as { type?: unknown }).type), why },
      "Slack payload not handled by the bot: acknowledged and ignored",
    );
    await ack();
  };
}

/** Why the bot has nothing to run for this payload, or undefined when a listener takes it. */
function unhandledReason(body: Record<string, unknown>): string | undefined {
  if (typeof body.command === "string") return undefined;
  switch (body.type) {
    case "block_actions":
      return Array.isArray(body.actions) && body.actions.some(isObject) ? undefined : "no actions";
    case "view_submission": {
      const view = isObject(body.view) ? body.view : {};
      return view.callback_id === FORM_CALLBACK_ID ? undefined : "not our view";
    }
    default:
      return "no listener for this type";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The payload type for the log line: it comes from outside. */
const clip = (value: unknown): string => (typeof value === "string" ? value.slice(0, 40) : typeof value);
