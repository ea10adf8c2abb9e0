import { type AnyMiddlewareArgs, App, HTTPReceiver, type Middleware, SocketModeReceiver } from "@slack/bolt";
import { type Clock, systemClock } from "../../src/clock.js";
import type { SlackConfig } from "../../src/config.js";
import type { Actor, ConversationRef, Invocation } from "../../src/core/invocation.js";
import type { Logger } from "../../src/core/logger.js";
import type { ChatAdapter } from "../../src/core/ports.js";
import type { Reply } from "../../src/core/reply.js";
import type { HttpRoute } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";
import { registerActions } from "./actions.js";
import { toSlackLogger } from "./bolt-logger.js";
import { DEFAULT_WORKING_NOTICE_MS, registerCommands } from "./commands.js";
import { createDelivery } from "./deliver.js";
import { createSlackGate, type SlackBody, type SlackGate } from "./gate.js";
import { registerHome } from "./home.js";
import { createInflight } from "./inflight.js";
import { createEventsRoute, SLACK_EVENTS_PATH } from "./receiver.js";
import { createResponseUrls } from "./response-url.js";
import { createSlackWeb, webClientOptions } from "./web.js";

/**
 * The Slack adapter: Bolt for the protocol (payload types, acks, listener routing), our code for
 * everything the bot promises on top (signature window, workspace, once-only, rendering, where
 * answers go). HTTP mode plugs Bolt's HTTPReceiver into the bot's own server at
 * `POST /slack/events`; with an app token it uses Socket Mode and exposes no route.
 */
export interface SlackAdapterOptions {
  config: SlackConfig;
  core: { handle(invocation: Invocation): Promise<Reply> };
  store: Store;
  logger: Logger;
  /** The App Home view for a user; unset: the Home tab is left alone. */
  homeReply?: (actor: Actor) => Promise<Reply>;
  /** Where a public answer goes when Slack refused it twice (the durable notification queue). */
  fallback?: (conversation: ConversationRef, reply: Reply) => Promise<void>;
  now?: Clock;
  /** Default 2.5 s; 0 turns the private "Working on it…" off. */
  workingNoticeMs?: number;
  /** Delay between attempts to reach Slack at start (auth.test, Socket Mode connect). */
  startRetryMs?: number;
}

export interface SlackAdapter extends ChatAdapter {
  readonly platform: "slack";
  /** `POST /slack/events` for the bot's HTTP server (HTTP mode only). */
  readonly route?: HttpRoute;
  /** Verifies the token (auth.test) and, in Socket Mode, connects; retried in the background. */
  start(): Promise<void>;
  /** True once Slack accepted the token (and the socket is up, in Socket Mode). */
  ready(): boolean;
  /** Resolves when no command or click is being worked on (bounded). */
  idle(timeoutMs?: number): Promise<void>;
  /** Stops taking requests and waits (bounded) for answers still being worked on. */
  close(timeoutMs?: number): Promise<void>;
}

export const SLACK_START_RETRY_MS = 5_000;

export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, logger } = options;
  const slackLogger = toSlackLogger(logger);
  const socketMode = config.appToken !== undefined;
  const gate = createSlackGate({ store: options.store, ...(config.teamId && { teamId: config.teamId }) });
  const receiver = socketMode
    ? new SocketModeReceiver({
        appToken: config.appToken ?? "",
        logger: slackLogger,
        installerOptions: { clientOptions: webClientOptions(config.apiUrl, slackLogger) },
      })
    : new HTTPReceiver({
        signingSecret: config.signingSecret,
        signatureVerification: false,
        logger: slackLogger,
      });
  const app = new App({
    token: config.botToken,
    receiver,
    logger: slackLogger,
    clientOptions: webClientOptions(config.apiUrl, slackLogger),
    deferInitialization: true,
    // Bolt's conversation store keeps state in process memory: shared state lives in our store.
    convoStore: false,
  });
  // Over HTTP the route gates before Bolt; a socket has no route, so Bolt's first middleware does.
  if (socketMode) app.use(gateMiddleware(gate, logger));

  const web = createSlackWeb(app.client);
  const responses = createResponseUrls({ ...(config.apiUrl && { slackApiUrl: config.apiUrl }) });
  const delivery = createDelivery({
    web,
    responses,
    logger,
    ...(options.fallback && { fallback: options.fallback }),
  });
  const inflight = createInflight();
  registerCommands(app, {
    core: options.core,
    delivery,
    responses,
    inflight,
    logger,
    workingNoticeMs: options.workingNoticeMs ?? DEFAULT_WORKING_NOTICE_MS,
  });
  registerActions(app, { core: options.core, delivery, inflight, logger });
  if (options.homeReply) registerHome(app, { homeReply: options.homeReply, web, inflight, logger });
  app.error(async (error) => {
    logger.error({ err: error }, "a Slack listener failed");
  });

  const state = {
    ready: false,
    closed: false,
    retry: undefined as NodeJS.Timeout | undefined,
    closing: undefined as Promise<void> | undefined,
  };
  const route = socketMode
    ? undefined
    : createEventsRoute({
        receiver: receiver as HTTPReceiver,
        signingSecrets: [config.signingSecret],
        gate,
        logger,
        now: options.now ?? systemClock,
        accepting: () => !state.closed,
      });

  async function connect(): Promise<void> {
    await app.init();
    if (socketMode) await app.start();
    state.ready = true;
    logger.info(
      { mode: socketMode ? "socket" : "http", path: socketMode ? undefined : SLACK_EVENTS_PATH },
      "Slack adapter ready",
    );
  }

  async function attempt(): Promise<void> {
    try {
      await connect();
    } catch (error) {
      if (state.closed) return;
      logger.error(
        { err: error },
        "could not reach Slack; verify SLACK_BOT_TOKEN (and SLACK_APP_TOKEN in Socket Mode) and SLACK_API_URL; retrying",
      );
      state.retry = setTimeout(() => void attempt(), options.startRetryMs ?? SLACK_START_RETRY_MS);
      state.retry.unref();
    }
  }

  return {
    platform: "slack",
    ...(route && { route }),
    start: attempt,
    ready: () => state.ready && !state.closed,
    send: (conversation, reply) => delivery.send(conversation, reply),
    idle: (timeoutMs = 10_000) => inflight.idle(timeoutMs),
    close(timeoutMs = 10_000) {
      state.closing ??= (async () => {
        state.closed = true;
        clearTimeout(state.retry);
        await inflight.idle(timeoutMs);
        if (socketMode && state.ready) await app.stop().catch(() => {});
      })();
      return state.closing;
    },
  };
}

/** Socket Mode's gate: a refused or repeated request is acknowledged and goes no further. */
function gateMiddleware(gate: SlackGate, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const admission = await gate.admit(args.body as SlackBody);
    if (admission.ok) return args.next();
    logger.info({ reason: admission.reason }, "Slack request not admitted");
    const ack = (args as { ack?: () => Promise<void> }).ack;
    if (ack) await ack();
  };
}
