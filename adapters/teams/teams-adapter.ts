import type { Activity, TurnContext } from "botbuilder";
import type { TeamsConfig } from "../../src/config/load-config.js";
import {
  type AdapterCore,
  type ChatAdapter,
  type ChatAdapterLifecycle,
  ChatSendError,
  type ConversationRef,
  type Invocation,
  type Logger,
  type Reply,
} from "../../src/core/index.js";
import { type HttpRoute, readRawBody, sendJson, sendText } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";
import { TeamsConnector } from "./connector.js";
import { createFileLinks } from "./files.js";
import { createPlaceWriter, readPlace } from "./references.js";
import { BUTTON_VERB, CARD_CONTENT_TYPE, renderCard, renderMessage } from "./render.js";
import { createTokenCheck, originOf, TokenRefused } from "./verify.js";

/*
 * The Microsoft Teams adapter: `POST /api/messages` takes Bot Framework activities whose token
 * passed `verify.ts`; a message is a command (in a channel, after the bot's mention), a pressed
 * `Action.Execute` is an `adaptiveCard/action` invoke answered in its own HTTP response with the
 * card's new state. Replies and notifications go through the Bot Connector (`connector.ts`).
 */
const TEAMS_MESSAGES_PATH = "/api/messages";
const CHANNEL = "msteams";
const FORM_VERB = "opsbot.form";
const MESSAGE_TYPE = "application/vnd.microsoft.activity.message";
const BODY_LIMIT_BYTES = 1_048_576;
/**
 * A message that is one address-shaped word (in backticks or Teams' inline code, `<code>`): a paste,
 * which the core checks (paste-to-check) instead of reading it as a command. The core decides
 * whether it is an address; a paste it does not answer (its flood limit) gets nothing.
 */
const PASTE_SHAPE = /^`{0,3}\s*T\w{33}\s*`{0,3}$/;

export interface TeamsAdapterOptions {
  config: TeamsConfig;
  core: Pick<AdapterCore, "handle" | "delivered" | "handleMessage">;
  store: Store;
  logger: Logger;
  /** ALERT_TEAMS_CONVERSATION: the start says whether the bot knows it yet. */
  alertConversation?: string;
}

export interface TeamsAdapter extends ChatAdapter, ChatAdapterLifecycle {
  readonly platform: "teams";
  /** `POST /api/messages` and `GET /files/:token`. */
  readonly routes: readonly HttpRoute[];
  /** Waits until no activity is being handled (tests, drain). */
  idle(timeoutMs?: number): Promise<void>;
}

type InvokeBody = { statusCode: number; type: string; value: unknown };

export function createTeamsAdapter(options: TeamsAdapterOptions): TeamsAdapter {
  const { config, core, store, logger } = options;
  const botId = `28:${config.appId}`;
  const connector = new TeamsConnector(config);
  connector.onTurnError = async (_context, error) => {
    logger.error({ err: error }, "teams: a turn failed");
  };
  const check = createTokenCheck({
    appId: config.appId,
    openIdUrl: config.openIdUrl,
    serviceOrigins: config.serviceOrigins,
  });
  const savePlace = createPlaceWriter(store);
  const files = createFileLinks({ store, secret: config.appPassword, publicUrl: config.publicUrl });
  let accepting = false;
  const inflight = new Set<Promise<unknown>>();

  /** The conversation an activity came from: the channel or chat, and the channel thread it is in. */
  function conversationOf(activity: Activity): ConversationRef {
    const [id = "", threadId] = String(activity.conversation?.id ?? "").split(";messageid=");
    return { platform: "teams", id, ...(threadId && { threadId }) };
  }

  const tenantOf = (activity: Activity): string | undefined =>
    (activity.channelData as { tenant?: { id?: string } } | undefined)?.tenant?.id;

  function sameTenant(activity: Activity): boolean {
    const given = activity.conversation?.tenantId;
    return tenantOf(activity) === config.tenantId && (given === undefined || given === config.tenantId);
  }

  /** The command typed: a channel message without the bot's mention, or the whole text. */
  function commandText(activity: Activity): string {
    let text = activity.text ?? "";
    for (const entity of activity.entities ?? []) {
      const mentioned = (entity as { mentioned?: { id?: string }; text?: string; type?: string }) ?? {};
      if (mentioned.type === "mention" && mentioned.mentioned?.id === botId && mentioned.text) {
        text = text.split(mentioned.text).join(" ");
      }
    }
    return text
      .replace(/<\/?at>/g, "")
      .replace(/\s+/g, " ")
      .trim();
  }

  async function remember(activity: Activity): Promise<void> {
    const place = {
      serviceUrl: activity.serviceUrl,
      tenantId: config.tenantId,
      ...(activity.conversation?.conversationType && {
        conversationType: activity.conversation.conversationType,
      }),
      ...(activity.recipient?.name && { botName: activity.recipient.name }),
    };
    await savePlace(conversationOf(activity).id, place);
    const team = (activity.channelData as { team?: { id?: string } } | undefined)?.team?.id;
    const installed =
      activity.type === "conversationUpdate" && activity.membersAdded?.some((m) => m.id === botId);
    if (team && installed) await savePlace(team, { ...place, conversationType: "channel" });
  }

  function actorOf(activity: Activity) {
    return {
      platform: "teams",
      userId: activity.from?.aadObjectId ?? "",
      ...(activity.from?.name && { displayName: activity.from.name }),
    };
  }

  async function onMessage(context: TurnContext): Promise<void> {
    const activity = context.activity;
    const text = commandText(activity);
    if (text === "") return;
    const pasted = text.replace(/<\/?code>/g, "").trim();
    if (PASTE_SHAPE.test(pasted) && core.handleMessage) {
      const reply = await core.handleMessage({
        actor: actorOf(activity),
        conversation: conversationOf(activity),
        text: pasted,
      });
      if (reply) await context.sendActivity(await renderMessage(reply, files.link));
      return;
    }
    const invocation: Invocation = {
      kind: "command",
      actor: actorOf(activity),
      conversation: conversationOf(activity),
      text,
      ...(activity.id && { messageId: activity.id }),
    };
    const reply = await core.handle(invocation, { confirmsDelivery: core.delivered !== undefined });
    await context.sendActivity(await renderMessage(reply, files.link));
    await core.delivered?.(reply);
  }

  async function onInvoke(context: TurnContext): Promise<void> {
    const activity = context.activity;
    const action = (
      activity.value as { action?: { verb?: string; data?: Record<string, unknown> } } | undefined
    )?.action;
    const answer = (body: InvokeBody) =>
      context.sendActivity({ type: "invokeResponse", value: { status: 200, body } });
    const line = (text: string): InvokeBody => ({ statusCode: 200, type: MESSAGE_TYPE, value: text });
    if (activity.name !== "adaptiveCard/action" || !action) {
      await answer(line("This button is not one of mine."));
      return;
    }
    let invocation: Invocation;
    if (action.verb === FORM_VERB) {
      const reason = typeof action.data?.reason === "string" ? action.data.reason.trim() : "";
      if (reason === "") {
        await answer(line("Nothing was done: a reason is needed."));
        return;
      }
      invocation = {
        kind: "command",
        actor: actorOf(activity),
        conversation: conversationOf(activity),
        text: `${String(action.data?.line ?? "")} ${reason}`,
      };
    } else if (action.verb === BUTTON_VERB && typeof action.data?.token === "string") {
      invocation = {
        kind: "action",
        actor: actorOf(activity),
        conversation: conversationOf(activity),
        token: action.data.token,
        ...(activity.replyToId && { messageId: activity.replyToId }),
      };
    } else {
      await answer(line("This button is not one of mine."));
      return;
    }
    const reply = await core.handle(invocation, { confirmsDelivery: core.delivered !== undefined });
    if (reply.asks) {
      await answer({ statusCode: 200, type: CARD_CONTENT_TYPE, value: formCard(reply.asks) });
    } else if (reply.visibility === "private") {
      await answer(line(reply.summary));
    } else if (reply.replacesOriginal || invocation.kind === "command") {
      await answer({ statusCode: 200, type: CARD_CONTENT_TYPE, value: await renderCard(reply, files.link) });
    } else {
      await context.sendActivity(await renderMessage(reply, files.link));
      await answer(line(reply.summary));
    }
    await core.delivered?.(reply);
  }

  async function turn(context: TurnContext): Promise<void> {
    const activity = context.activity;
    await remember(activity);
    if (!sameTenant(activity)) {
      // Another organisation: one refusal line at most, and nothing it asks for is done.
      if (activity.type === "message") await context.sendActivity("This bot serves one organisation only.");
      if (activity.type === "invoke") {
        await context.sendActivity({
          type: "invokeResponse",
          value: {
            status: 200,
            body: { statusCode: 200, type: MESSAGE_TYPE, value: "This bot serves one organisation only." },
          },
        });
      }
      return;
    }
    if (activity.type === "message") await onMessage(context);
    else if (activity.type === "invoke") await onInvoke(context);
  }

  const messagesRoute: HttpRoute = {
    method: "POST",
    path: TEAMS_MESSAGES_PATH,
    async handler(req, res) {
      if (!accepting) return sendText(res, 503, "not ready");
      let activity: Activity;
      try {
        activity = JSON.parse((await readRawBody(req, BODY_LIMIT_BYTES)).toString("utf8")) as Activity;
      } catch {
        return sendText(res, 401, "unauthorized");
      }
      try {
        if (typeof activity !== "object" || activity === null) throw new TokenRefused("not an activity");
        const claims = await check(req.headers.authorization, activity.serviceUrl);
        if (activity.channelId !== CHANNEL) throw new TokenRefused("not a Teams activity");
        const work = connector.processChecked(claims, activity, turn);
        inflight.add(work);
        const invoked = await work.finally(() => inflight.delete(work));
        if (invoked) return sendJson(res, invoked.status, invoked.body ?? {});
        return sendText(res, 200, "");
      } catch (error) {
        if (error instanceof TokenRefused) {
          logger.warn({ reason: error.message }, "teams: refused an activity whose token did not pass");
          return sendText(res, 401, "unauthorized");
        }
        throw error;
      }
    },
  };

  async function withPlace(conversation: ConversationRef, run: (context: TurnContext) => Promise<void>) {
    const place = await readPlace(store, conversation.id);
    if (place === undefined) {
      throw new ChatSendError(
        `Teams conversation ${conversation.id} is not known yet (the bot is not installed there)`,
        // Retried on the notify queue's backoff, for up to a day (its retry window).
        { code: "teams_conversation_unknown", retryable: true },
      );
    }
    const origin = originOf(place.serviceUrl);
    if (origin === undefined || !config.serviceOrigins.includes(origin)) {
      throw new ChatSendError("the conversation's serviceUrl is not in TEAMS_SERVICE_URLS", {
        code: "teams_service_url_refused",
        retryable: false,
      });
    }
    const id = conversation.threadId
      ? `${conversation.id};messageid=${conversation.threadId}`
      : conversation.id;
    try {
      await connector.continueConversationAsync(
        config.appId,
        {
          channelId: CHANNEL,
          serviceUrl: place.serviceUrl,
          conversation: {
            id,
            tenantId: place.tenantId,
            isGroup: place.conversationType !== "personal",
            conversationType: place.conversationType ?? "channel",
            name: "",
          },
          bot: { id: botId, name: place.botName ?? "opsbot" },
        },
        run,
      );
    } catch (error) {
      throw sendError(error);
    }
  }

  const adapter: TeamsAdapter = {
    platform: "teams",
    routes: [messagesRoute, files.route],
    async send(conversation, reply) {
      const message = await renderMessage(reply, files.link);
      let messageId = "";
      await withPlace(conversation, async (context) => {
        messageId = (await context.sendActivity(message))?.id ?? "";
      });
      return { messageId };
    },
    async replace(conversation, messageId, reply) {
      const message = await renderMessage(reply, files.link);
      try {
        await withPlace(conversation, async (context) => {
          await context.updateActivity({ ...message, id: messageId });
        });
        return { messageId };
      } catch (error) {
        if (error instanceof ChatSendError && error.code === "teams_404")
          return adapter.send(conversation, reply);
        throw error;
      }
    },
    async start() {
      accepting = true;
      if (options.alertConversation && !(await readPlace(store, options.alertConversation))) {
        logger.warn(
          { conversation: options.alertConversation },
          "teams: ALERT_TEAMS_CONVERSATION is not known yet: install the bot in that team; notifications wait until then",
        );
      }
    },
    ready: () => accepting,
    async close(timeoutMs = 10_000) {
      accepting = false;
      await adapter.idle(timeoutMs);
    },
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (inflight.size > 0 && Date.now() < deadline) {
        await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 50))]);
      }
    },
  };
  return adapter;
}

/** The reason's card of a button that asks first (`Reply.asks`): a text input and a submit. */
function formCard(asks: NonNullable<Reply["asks"]>) {
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.5",
    body: [
      { type: "TextBlock", text: asks.prompt, wrap: true },
      {
        type: "Input.Text",
        id: "reason",
        isMultiline: true,
        isRequired: true,
        errorMessage: "A reason is needed.",
      },
    ],
    actions: [{ type: "Action.Execute", title: "Submit", verb: FORM_VERB, data: { line: asks.line } }],
  };
}

/** A connector failure as the notify queue reads it: a 429 waits its Retry-After; a 403/404 is final. */
function sendError(error: unknown): ChatSendError {
  if (error instanceof ChatSendError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  const headers = (error as { response?: { headers?: { get?(name: string): string | undefined } } }).response
    ?.headers;
  const retryAfter = Number(headers?.get?.("retry-after"));
  const retryAfterMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1_000 : undefined;
  return new ChatSendError(`Teams connector: ${status ?? "no answer"}`, {
    code: status === undefined ? "teams_unreachable" : `teams_${status}`,
    retryable: status === undefined || status === 429 || status >= 500,
    retryAfterMs,
  });
}
