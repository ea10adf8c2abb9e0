import type { App } from "@slack/bolt";
import type { Logger, PastedMessage, Reply } from "../../src/core/index.js";
import type { Delivery } from "./deliver.js";
import type { Inflight } from "./inflight.js";

/**
 * Plain messages in the channels the bot is in (`message.channels`, `message.groups`) and
 * mentions of the bot (`app_mention`), for paste-to-check: the core answers a pasted TRON address
 * and nothing else. Edits, joins, bot messages and every other subtype are ignored; so is a message
 * that mentions the bot, which Slack also sends as `app_mention` (handled once, there).
 */
export interface MessageListenerOptions {
  core: { handleMessage?(message: PastedMessage): Promise<Reply | undefined> };
  delivery: Delivery;
  inflight: Inflight;
  logger: Logger;
}

interface SlackMessage {
  user?: string;
  text?: string;
  channel?: string;
  channel_type?: string;
  subtype?: string;
  bot_id?: string;
  ts?: string;
  thread_ts?: string;
}

const MENTION = /<@[A-Z0-9]+(?:\|[^>]*)?>/g;
/** Public and private channels; direct messages are off (the app has no Messages tab). */
const SERVED_CHANNEL_TYPES = new Set(["channel", "group"]);

export function registerMessages(app: App, options: MessageListenerOptions): void {
  const handleMessage = options.core.handleMessage?.bind(options.core);
  if (handleMessage === undefined) return;
  const run = (event: SlackMessage, text: string) =>
    options.inflight.run(() => answerPaste(event, text, { ...options, handleMessage }));
  app.event("message", async ({ event }) => {
    const message = event as SlackMessage;
    if (malformed(message, options.logger)) return;
    if (message.subtype !== undefined || message.bot_id !== undefined) return;
    if (!SERVED_CHANNEL_TYPES.has(message.channel_type ?? "")) return;
    const text = message.text ?? "";
    if (text.includes("<@")) return;
    await run(message, text);
  });
  app.event("app_mention", async ({ event }) => {
    const message = event as SlackMessage;
    if (malformed(message, options.logger)) return;
    if (message.subtype !== undefined || message.bot_id !== undefined) return;
    await run(message, (message.text ?? "").replace(MENTION, " "));
  });
}

/** Fields that are not what Slack documents (a `text` that is an object): one line, nothing run. */
function malformed(message: SlackMessage, logger: Logger): boolean {
  const fields = ["text", "user", "channel", "subtype", "bot_id", "thread_ts", "channel_type"] as const;
  const wrong = fields.find((f) => message[f] !== undefined && typeof message[f] !== "string");
  if (wrong === undefined) return false;
  logger.warn({ field: wrong }, "Slack message event ignored: a field is not text");
  return true;
}

async function answerPaste(
  event: SlackMessage,
  text: string,
  options: MessageListenerOptions & { handleMessage(m: PastedMessage): Promise<Reply | undefined> },
): Promise<void> {
  const { user, channel } = event;
  if (user === undefined || channel === undefined) return;
  try {
    const reply = await options.handleMessage({
      actor: { platform: "slack", userId: user },
      conversation: { platform: "slack", id: channel },
      text,
    });
    if (reply === undefined) return;
    // In the channel, next to the paste (in its thread when it was pasted into one).
    await options.delivery.answer(
      { channel, user, ...(event.thread_ts !== undefined && { threadTs: event.thread_ts }) },
      reply,
    );
  } catch (error) {
    options.logger.error({ err: error, channel }, "could not answer a pasted address in Slack");
  }
}
