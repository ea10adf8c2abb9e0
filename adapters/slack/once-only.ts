import type { IncomingMessage } from "node:http";
import type { Logger } from "../../src/core/index.js";
import type { Admission, SlackBody } from "./gate.js";
import type { ResponseUrls } from "./response-url.js";
import { storeDownFollowUp } from "./store-down.js";

/**
 * The once-only mark of a slash command or a click, taken while Bolt acks it. The route checks the
 * signature and the workspace (no store), starts the claim (SET NX in the shared store) and hands
 * the request to Bolt at once; the listener acks, then awaits the claim before it runs anything.
 * A retry (`X-Slack-Retry-Num`) or a second delivery to another instance is acked by Bolt like the
 * first, and the claim drops it: exactly one of them runs, on one instance.
 */
type Claim = Admission | { ok: false; reason: "unavailable"; error: unknown };

/** The key under which the claim reaches the listener through Bolt's `context`. */
const CONTEXT_KEY = "opsbotOnceOnly";

const pending = new WeakMap<IncomingMessage, Promise<Claim>>();

/** Settled, never rejected: nobody may see an unhandled rejection while Bolt parses. */
export function startClaim(req: IncomingMessage, claim: Promise<Admission>): void {
  pending.set(
    req,
    claim.catch((error: unknown): Claim => ({ ok: false, reason: "unavailable", error })),
  );
}

/** Bolt's HTTPReceiver `customPropertiesExtractor`: puts the request's claim into its `context`. */
export function claimProperties(req: IncomingMessage): Record<string, unknown> {
  const claim = pending.get(req);
  return claim === undefined ? {} : { [CONTEXT_KEY]: claim };
}

export interface OnceOnly {
  /** After the ack: true when this request holds its once-only mark and may run. */
  mayRun(context: Record<string, unknown>, body: SlackBody): Promise<boolean>;
}

export function createOnceOnly(deps: { responses: ResponseUrls; logger: Logger }): OnceOnly {
  return {
    async mayRun(context, body) {
      const claim = context[CONTEXT_KEY] as Promise<Claim> | undefined;
      // No claim: the request was gated whole before Bolt (Socket Mode's middleware).
      if (claim === undefined) return true;
      const result = await claim;
      if (result.ok) return true;
      if (result.reason === "duplicate") {
        deps.logger.info({ identity: result.identity }, "Slack re-sent a request already handled; ignored");
      } else if (result.reason === "unavailable") {
        deps.logger.error(
          { err: result.error },
          "could not check a Slack request against the store; nothing was run",
        );
        await storeDownFollowUp(body, deps.responses, deps.logger);
      }
      return false;
    },
  };
}
