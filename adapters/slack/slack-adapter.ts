import { type Clock, systemClock } from "../../src/clock.js";
import type { SlackConfig } from "../../src/config/load-config.js";
import type {
  Actor,
  AdapterCore,
  ChatAdapter,
  ChatAdapterLifecycle,
  ConversationRef,
  Logger,
  UserGroupDirectory,
} from "../../src/core/index.js";
import { FORMS, type Reply } from "../../src/core/index.js";
import type { HttpRoute } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";
import { registerActions } from "./actions.js";
import { createBoltApp } from "./bolt-app.js";
import { DEFAULT_WORKING_NOTICE_MS, registerCommands } from "./commands.js";
import { createDelivery } from "./deliver.js";
import { registerFileCommands } from "./file-commands.js";
import { openForm, registerForms } from "./forms.js";
import { createSlackGate } from "./gate.js";
import { publish, registerHome } from "./home.js";
import { createInflight } from "./inflight.js";
import { createLifecycle } from "./lifecycle.js";
import { slackMessageLink } from "./message-link.js";
import { registerMessages } from "./messages.js";
import { createOnceOnly } from "./once-only.js";
import { homeUserOf } from "./platform.js";
import { createEventsRoute } from "./receiver.js";
import { createResponseUrls } from "./response-url.js";
import { createSlackUserGroups, registerUserGroupEvents } from "./user-groups.js";
import { createSlackWeb } from "./web.js";

/**
 * The Slack adapter: Bolt for the protocol (payload types, acks, listener routing), our code for
 * everything the bot promises on top (signature window, workspace, once-only, rendering, where
 * answers go). HTTP mode plugs Bolt's HTTPReceiver into the bot's own server at
 * `POST /slack/events`; with an app token it uses Socket Mode and exposes no route.
 */
export interface SlackAdapterOptions {
  config: SlackConfig;
  /**
   * Unset `handleMessage`: plain messages and mentions are ignored; unset `formFor`: the usage
   * line; the verbs of `commands` let a file shared with a command as its message run it.
   */
  core: AdapterCore;
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
  /** Roles from user groups: the directory `roleOf` reads, and the role lists naming `slack:S…`. */
  userGroups?: { directory: UserGroupDirectory; lists: Readonly<Record<string, readonly string[]>> };
}

export interface SlackAdapter extends ChatAdapter, ChatAdapterLifecycle {
  readonly platform: "slack";
  /** A picture by the files flow, its summary as alt text and comment, in the conversation's thread. */
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

export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, logger } = options;
  const gate = createSlackGate({ store: options.store, ...(config.teamId && { teamId: config.teamId }) });
  const responses = createResponseUrls({ ...(config.apiUrl && { slackApiUrl: config.apiUrl }) });
  const { app, http } = createBoltApp(config, logger, gate, responses);
  const web = createSlackWeb(app.client);
  const delivery = createDelivery({
    web,
    responses,
    logger,
    ...(options.fallback && { fallback: options.fallback }),
  });
  const inflight = createInflight();
  const onceOnly = createOnceOnly({ responses, logger });
  const workingNoticeMs = options.workingNoticeMs ?? DEFAULT_WORKING_NOTICE_MS;
  registerCommands(app, {
    core: options.core,
    delivery,
    responses,
    inflight,
    onceOnly,
    logger,
    workingNoticeMs,
    openForm: (triggerId, offer, channel) => openForm(web, logger, triggerId, offer.spec, channel),
  });
  const now = options.now ?? systemClock;
  registerForms(app, { core: options.core, forms: FORMS, delivery, inflight, logger, now });
  const home = options.homeReply && { homeReply: options.homeReply, web, logger };
  registerActions(app, {
    core: options.core,
    delivery,
    inflight,
    onceOnly,
    logger,
    ...(home && { onHomePress: (user: string, reply: Reply) => publish(user, home, reply) }),
    openAsked: async (triggerId, asks, channel) => {
      const spec = FORMS[asks.form];
      if (spec === undefined) return false;
      const titled = asks.title === undefined ? spec : { ...spec, title: asks.title };
      return openForm(web, logger, triggerId, titled, channel, asks.line);
    },
  });
  registerMessages(app, { core: options.core, delivery, inflight, logger });
  registerFileCommands(app, {
    core: options.core,
    web,
    botToken: config.botToken,
    delivery,
    inflight,
    logger,
  });
  if (options.homeReply) registerHome(app, { homeReply: options.homeReply, web, inflight, logger });
  const groups =
    options.userGroups &&
    createSlackUserGroups({ client: app.client, store: options.store, logger, ...options.userGroups });
  if (groups) registerUserGroupEvents(app, groups, logger);

  const lifecycle = createLifecycle({
    app,
    socketMode: http === undefined,
    inflight,
    logger,
    ...(options.startRetryMs !== undefined && { retryMs: options.startRetryMs }),
  });
  const route =
    http &&
    createEventsRoute({
      receiver: http,
      signingSecrets: [config.signingSecret],
      gate,
      responses,
      logger,
      now: options.now ?? systemClock,
      accepting: () => !lifecycle.closed(),
    });

  return {
    platform: "slack",
    ...(route && { route }),
    async start() {
      await lifecycle.start();
      await groups?.start();
    },
    ready: lifecycle.ready,
    send: async (conversation, reply) => {
      // A notice to a user's App Home (an alert changed): its view is published again.
      const user = homeUserOf(conversation.id);
      if (user === undefined) return delivery.send(conversation, reply);
      if (home) await publish(user, home);
      return { messageId: "" };
    },
    replace: (conversation, messageId, reply) => delivery.replace(conversation, messageId, reply),
    messageLink: slackMessageLink,
    idle: (timeoutMs = 10_000) => inflight.idle(timeoutMs),
    close: (timeoutMs = 10_000) => {
      groups?.stop();
      return lifecycle.close(timeoutMs);
    },
  };
}
