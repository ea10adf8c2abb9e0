import { type AnyMiddlewareArgs, App, HTTPReceiver, type Middleware, SocketModeReceiver } from "@slack/bolt";
import type { SlackConfig } from "../../src/config/load-config.js";
import type { Logger } from "../../src/core/index.js";
import { storeWithin } from "../../src/store/bounded.js";
import { toSlackLogger } from "./bolt-logger.js";
import type { Admission, SlackBody, SlackGate } from "./gate.js";
import { claimProperties } from "./once-only.js";
import type { ResponseUrls } from "./response-url.js";
import { storeDownAnswer } from "./store-down.js";
import { ackUnhandled } from "./unhandled.js";
import { webClientOptions } from "./web.js";

/**
 * Bolt's App over one of its two receivers. HTTP: Bolt's HTTPReceiver, whose `requestListener` our
 * route calls after verifying and gating the request (so Bolt's own signature check is off: it
 * would check the same bytes, less strictly). Socket Mode: Bolt's SocketModeReceiver, and the gate
 * as Bolt's first middleware, since no route of ours sees those requests.
 */
export interface BoltApp {
  app: App;
  /** Set in HTTP mode. */
  http?: HTTPReceiver;
}

export function createBoltApp(
  config: SlackConfig,
  logger: Logger,
  gate: SlackGate,
  responses: ResponseUrls,
): BoltApp {
  const slackLogger = toSlackLogger(logger);
  const clientOptions = webClientOptions(config.apiUrl, slackLogger);
  const http =
    config.appToken === undefined
      ? new HTTPReceiver({
          signingSecret: config.signingSecret,
          signatureVerification: false,
          // The once-only claim the route started reaches the listeners in `context`.
          customPropertiesExtractor: claimProperties,
          logger: slackLogger,
        })
      : undefined;
  const receiver =
    http ??
    new SocketModeReceiver({
      appToken: config.appToken ?? "",
      logger: slackLogger,
      installerOptions: { clientOptions },
    });
  const app = new App({
    token: config.botToken,
    receiver,
    logger: slackLogger,
    clientOptions,
    // The token is checked by `start` (auth.test), with retries, instead of in the constructor.
    deferInitialization: true,
    // Bolt's conversation store keeps state in process memory: shared state lives in our store.
    convoStore: false,
  });
  if (!http) app.use(gateMiddleware(gate, responses, logger));
  app.use(ackUnhandled(logger));
  app.error(async (error) => {
    logger.error({ err: error }, "a Slack listener failed");
  });
  return { app, ...(http && { http }) };
}

/**
 * Socket Mode's gate: a refused or repeated request is acknowledged and goes no further; one the
 * store could not check is answered "storage is unavailable" like in HTTP mode (an event is not
 * acknowledged, so Slack sends it again).
 */
function gateMiddleware(
  gate: SlackGate,
  responses: ResponseUrls,
  logger: Logger,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    let admission: Admission;
    try {
      admission = await storeWithin(gate.admit(args.body as SlackBody));
    } catch (error) {
      logger.error({ err: error }, "could not check a Slack request against the store; nothing was run");
      const answer = storeDownAnswer(args.body as SlackBody, responses, logger);
      if (answer.kind === "command") await ack?.(answer.ack);
      if (answer.kind === "action") {
        await ack?.();
        await answer.followUp();
      }
      return;
    }
    if (admission.ok) return args.next();
    logger.info({ reason: admission.reason }, "Slack request not admitted");
    if (ack) await ack();
  };
}
