import type { ConversationRef, Logger, Reply } from "../../src/core/index.js";
import { isSlackApiError } from "./errors.js";
import { shareFiles } from "./files.js";
import {
  hasButtons,
  onlyFiles,
  renderMrkdwnText,
  renderReply,
  type SlackBlock,
  type SlackMessage,
} from "./render/blocks.js";
import type { ResponsePayload, ResponseUrls } from "./response-url.js";
import type { SlackWeb } from "./web.js";

/**
 * Where a reply goes. Answers to a command or a click use the request's `response_url` first
 * (it works in any conversation the user typed in, even one the bot has not joined) and fall back
 * to the Web API; private replies are ephemeral, so only the user who typed sees them.
 * Notifications (`send`) always use the Web API.
 */
export interface Interaction {
  channel: string;
  user: string;
  responseUrl?: string;
  threadTs?: string;
  /** The message that carried the clicked button. */
  message?: { ts: string; ephemeral: boolean };
}

export interface DeliveryOptions {
  web: SlackWeb;
  responses: ResponseUrls;
  logger: Logger;
  /** Last resort for a public answer Slack refused twice: the durable notification queue. */
  fallback?: (conversation: ConversationRef, reply: Reply) => Promise<void>;
}

export interface Delivery {
  send(conversation: ConversationRef, reply: Reply): Promise<{ messageId: string }>;
  /** `chat.update` of message `ts`; a new message when Slack refuses the edit (deleted, not editable). */
  replace(conversation: ConversationRef, ts: string, reply: Reply): Promise<{ messageId: string }>;
  answer(target: Interaction, reply: Reply, lead?: readonly SlackBlock[]): Promise<void>;
}

/** Slack refuses an empty `blocks` list: a text-only message has none. */
const body = (m: SlackMessage) =>
  m.blocks.length > 0 ? { text: m.text, blocks: m.blocks } : { text: m.text };

export function createDelivery(options: DeliveryOptions): Delivery {
  const { web, responses, logger } = options;

  /** Tries the response_url; false when it is not allowed or Slack refused it. */
  async function viaResponseUrl(target: Interaction, payload: ResponsePayload): Promise<boolean> {
    if (!responses.allows(target.responseUrl)) {
      if (target.responseUrl !== undefined) {
        logger.warn(
          { channel: target.channel },
          "response_url origin not allowed; answering with the Web API",
        );
      }
      return false;
    }
    try {
      await responses.post(target.responseUrl, payload);
      return true;
    } catch (error) {
      logger.warn(logFields(error, target), "response_url failed; answering with the Web API");
      return false;
    }
  }

  async function privately(target: Interaction, message: SlackMessage): Promise<void> {
    const payload = { ...body(message), response_type: "ephemeral" as const, replace_original: false };
    if (await viaResponseUrl(target, payload)) return;
    await web.postEphemeral(target.channel, target.user, body(message), target.threadTs);
  }

  async function publicly(target: Interaction, message: SlackMessage): Promise<void> {
    const payload = { ...body(message), response_type: "in_channel" as const, replace_original: false };
    if (await viaResponseUrl(target, payload)) return;
    await web.postMessage(target.channel, body(message), target.threadTs);
  }

  async function replacing(target: Interaction, message: SlackMessage): Promise<void> {
    if (await viaResponseUrl(target, { ...body(message), replace_original: true })) return;
    const clicked = target.message;
    if (clicked && !clicked.ephemeral) await web.update(target.channel, clicked.ts, body(message));
    else await web.postMessage(target.channel, body(message), target.threadTs);
  }

  async function filesFor(target: Interaction, message: SlackMessage, reply: Reply): Promise<void> {
    // A reply of only files (a chart) says what it is with the upload: its summary, and nothing else.
    const comment = onlyFiles(reply) ? { initialComment: renderMrkdwnText(reply) } : {};
    try {
      await shareFiles(web, target.channel, message.files, { ...threadOf(target.threadTs), ...comment });
    } catch (error) {
      logger.warn(logFields(error, target), "could not share a file into the conversation");
      const code = isSlackApiError(error) ? error.code : "error";
      const line =
        code === "not_in_channel" || code === "channel_not_found"
          ? "The file could not be posted here: invite the bot to this conversation (/invite), then ask again."
          : `The file could not be posted (Slack said ${code}); try again in a moment.`;
      await privately(target, renderReply({ summary: line, blocks: [], visibility: "private" }));
    }
  }

  async function answer(target: Interaction, reply: Reply, lead: readonly SlackBlock[] = []): Promise<void> {
    const message = renderReply(reply, lead);
    if (reply.visibility === "private") return privately(target, message);
    const conversation: ConversationRef = {
      platform: "slack",
      id: target.channel,
      ...threadRef(target.threadTs),
    };
    try {
      if (message.blocks.length > 0 || message.files.length === 0) {
        if (reply.replacesOriginal && target.message) await replacing(target, message);
        else await publicly(target, message);
      }
    } catch (error) {
      if (!options.fallback) throw error;
      logger.warn(logFields(error, target), "could not answer in Slack now; queued as a notification");
      // Still in place of the clicked message when it is delivered later, so it never shows twice.
      const clicked = reply.replacesOriginal && !target.message?.ephemeral ? target.message?.ts : undefined;
      // A person's answer: sent whole when its turn comes, never folded into a digest of notices.
      const answer: Reply = { ...reply, answers: {} };
      return options.fallback(
        conversation,
        clicked === undefined ? answer : { ...answer, replaces: clicked },
      );
    }
    if (message.files.length > 0) await filesFor(target, message, reply);
  }

  async function post(channel: string, reply: Reply, threadTs: string | undefined): Promise<string> {
    const message = renderReply(reply);
    if (message.files.length > 0 && !hasButtons(reply)) {
      // One Slack call posts the text and the files together, so a retried job never posts the
      // text twice: the uploads before it only create files nobody sees until they are shared.
      const ids = await shareFiles(web, channel, message.files, {
        ...threadOf(threadTs),
        initialComment: renderMrkdwnText(reply),
      });
      return ids[0] ?? "";
    }
    const ts = await web.postMessage(channel, body(message), threadTs);
    await shareFiles(web, channel, message.files, { ...threadOf(threadTs) });
    return ts;
  }

  /** Into the thread; when its first message is gone (deleted), into the channel instead. */
  async function postThreaded(conversation: ConversationRef, reply: Reply): Promise<string> {
    const threadTs = conversation.threadId;
    try {
      return await post(conversation.id, reply, threadTs);
    } catch (error) {
      if (threadTs === undefined || !isSlackApiError(error) || !THREAD_GONE.has(error.code)) throw error;
      logger.info({ channel: conversation.id, code: error.code }, "thread is gone; posting in the channel");
      return post(conversation.id, reply, undefined);
    }
  }

  async function send(conversation: ConversationRef, reply: Reply): Promise<{ messageId: string }> {
    const messageId = await postThreaded(conversation, reply);
    if (reply.alert !== undefined && conversation.threadId !== undefined) {
      // The thread holds the details; the channel gets one line. Best effort: the details are
      // posted, and a retry of this job would post them twice.
      await web.postMessage(conversation.id, { text: reply.alert }).catch((error: unknown) => {
        logger.warn(logFields(error, { channel: conversation.id, user: "" }), "could not post an alert line");
      });
    }
    return { messageId };
  }

  async function replace(
    conversation: ConversationRef,
    ts: string,
    reply: Reply,
  ): Promise<{ messageId: string }> {
    const message = renderReply(reply);
    if (message.files.length > 0) return send(conversation, reply);
    try {
      await web.update(conversation.id, ts, body(message));
      return { messageId: ts };
    } catch (error) {
      if (!isSlackApiError(error) || !NOT_EDITABLE.has(error.code)) throw error;
      logger.info({ channel: conversation.id, code: error.code }, "message not editable; posting anew");
      return send(conversation, reply);
    }
  }

  return { send, replace, answer };
}

/** Slack's answers when a message can no longer be edited: it is gone, or not the bot's to edit. */
const NOT_EDITABLE = new Set(["message_not_found", "cant_update_message", "edit_window_closed"]);

/** Slack's answers when a thread's first message no longer exists. */
const THREAD_GONE = new Set(["thread_not_found", "message_not_found"]);

const threadOf = (ts: string | undefined) => (ts === undefined ? {} : { threadTs: ts });
const threadRef = (ts: string | undefined) => (ts === undefined ? {} : { threadId: ts });

function logFields(error: unknown, target: Interaction): Record<string, unknown> {
  return isSlackApiError(error)
    ? { channel: target.channel, method: error.method, code: error.code }
    : { channel: target.channel, err: error };
}
