import { Composer, type Context, type Filter, type NextFunction } from "grammy";
import { within } from "../../../src/clock.js";
import type {
  AdapterCore,
  ConversationRef,
  Invocation,
  Logger,
  SharedFile,
} from "../../../src/core/index.js";
import { errorReply, type Reply } from "../../../src/core/index.js";
import type { Redeliver } from "../redeliver.js";
import { clean } from "../render/escape.js";
import { renderReply } from "../render/html.js";
import type { PostOptions, TelegramSender } from "../send.js";
import { knownVerbs, readCommand } from "./commands.js";
import { actorOf, conversationOf, topicOf } from "./identity.js";
import { answeredPrompt, askedForArguments, type Prompts, settlePrompt } from "./prompts.js";
import type { TelegramDocument } from "./shared-file.js";

/**
 * The bot's update handling, as grammY middleware: only allowed chats are served, commands go to
 * the core, button clicks are claimed by the core and answered, and the message that carried
 * the buttons is replaced by the result. The adapter turns Telegram into Invocations and
 * Replies into Telegram; every decision is the core's.
 */
/** The commands are required here: Telegram publishes them as the bot's menu. */
export type ChatCore = AdapterCore & Required<Pick<AdapterCore, "commands">>;

export interface HandlerDeps {
  core: ChatCore;
  sender: TelegramSender;
  allowedChats: ReadonlySet<string>;
  logger: Logger;
  /** A reply that could not be posted now: handed to the durable notification queue. */
  redeliver: Redeliver;
  /**
   * How long a click may run before its spinner is stopped. Telegram expects the answer within
   * seconds; a slower action (placing an order) answers first and posts the result when done.
   */
  answerWithinMs: number;
  /** ForceReply prompts waiting for their answer; unset: no prompts (the usage line instead). */
  prompts?: Prompts;
  /**
   * True when a chat that is not served may be told so now (the first time in its window, kept in
   * the shared store so every instance agrees); unset: every time.
   */
  mayRefuse?(chatId: number): Promise<boolean>;
  /** Reads a document sent with a command as its caption (getFile + the file URL); unset: ignored. */
  readDocument?: (document: TelegramDocument) => Promise<SharedFile>;
}

const PRIVATE_HINT = "Commands start with a slash: type /help to see what I can do.";
/** Telegram's limit on the text of a callback answer. */
const TOAST_MAX = 200;

export const refusalLine = (chatId: number): string =>
  `This chat is not served by this bot (chat id ${chatId}). An admin can add it to TELEGRAM_ALLOWED_CHATS.`;

export function createHandlers(deps: HandlerDeps): Composer<Context> {
  const verbs = knownVerbs(deps.core.commands);
  const composer = new Composer<Context>();
  composer.use((ctx, next) => servedOnly(ctx, next, deps, verbs));
  composer.on("message:text", (ctx) => onText(ctx, deps, verbs));
  composer.on("message:document", (ctx) => onDocument(ctx, deps, verbs));
  composer.on("callback_query:data", (ctx) => onButton(ctx, deps));
  // A query without data (a game button) is not ours, but still answered so no spinner hangs.
  composer.on("callback_query", (ctx) => answer(ctx, deps));
  return composer;
}

/** Any chat outside TELEGRAM_ALLOWED_CHATS gets one refusal line and nothing else. */
async function servedOnly(ctx: Context, next: NextFunction, deps: HandlerDeps, verbs: ReadonlySet<string>) {
  const chat = ctx.chat;
  if (chat === undefined) {
    if (ctx.callbackQuery) await answer(ctx, deps);
    return;
  }
  if (deps.allowedChats.has(String(chat.id))) return next();
  if (ctx.callbackQuery) return answer(ctx, deps, { text: refusalLine(chat.id), show_alert: true });
  const text = ctx.message?.text;
  if (text === undefined) return;
  const read = readCommand(
    { text, entities: ctx.message?.entities },
    ctx.me.username,
    chat.type === "private",
    verbs,
  );
  if (read.kind === "ignore" || (read.kind === "text" && chat.type !== "private")) return;
  // A stranger's flood gets one line per window, not one per message.
  const first = await (deps.mayRefuse?.(chat.id) ?? Promise.resolve(true)).catch(() => true);
  if (!first) return;
  deps.logger.info(
    { chatId: chat.id, chatType: chat.type },
    "telegram: refused a chat that is not in TELEGRAM_ALLOWED_CHATS; add its id there to serve it",
  );
  await ctx.reply(refusalLine(chat.id));
}

async function onText(ctx: Filter<Context, "message:text">, deps: HandlerDeps, verbs: ReadonlySet<string>) {
  const { message, chat } = ctx;
  const privateChat = chat.type === "private";
  const read = readCommand(message, ctx.me.username, privateChat, verbs);
  if (read.kind === "ignore") return;
  const conversation = conversationOf(chat, topicOf(message));
  const replyTo = privateChat ? {} : { replyTo: message.message_id };
  let line: string | undefined;
  let prompted: { line: string; verb: string } | undefined;
  if (read.kind === "text") {
    // The answer to a ForceReply prompt is the arguments of the command that asked for them.
    prompted = await answeredPrompt(ctx, deps.prompts);
    if (prompted === undefined) return onPlainText(ctx, deps, conversation);
    line = prompted.line;
  }
  const invocation: Extract<Invocation, { kind: "command" }> = {
    kind: "command",
    actor: actorOf(ctx.from),
    conversation,
    text: line ?? (read.kind === "command" ? read.text : ""),
    messageId: String(message.message_id),
  };
  const asked = line === undefined ? await askedForArguments(ctx, deps, invocation) : undefined;
  if (asked === "asked") return;
  const reply = asked ?? (await deps.core.handle(invocation));
  if (prompted !== undefined && (await settlePrompt(ctx, deps.prompts, reply, prompted.verb))) return;
  await deliver(deps, conversation, reply, replyTo);
}

/** A document with a command as its caption (`/energy` + a CSV): the command runs with the file. */
async function onDocument(
  ctx: Filter<Context, "message:document">,
  deps: HandlerDeps,
  verbs: ReadonlySet<string>,
) {
  const { message, chat } = ctx;
  const caption = message.caption;
  if (caption === undefined || deps.readDocument === undefined) return;
  const read = readCommand(
    { text: caption, entities: message.caption_entities },
    ctx.me.username,
    chat.type === "private",
    verbs,
  );
  if (read.kind !== "command") return;
  const conversation = conversationOf(chat, topicOf(message));
  const file = await deps.readDocument(message.document);
  const reply = await deps.core.handle({
    kind: "command",
    actor: actorOf(ctx.from),
    conversation,
    text: read.text,
    messageId: String(message.message_id),
    file,
  });
  await deliver(deps, conversation, reply, chat.type === "private" ? {} : { replyTo: message.message_id });
}

/** A plain message: a pasted address gets its verdict (as a reply to it); in a private chat, a hint. */
async function onPlainText(
  ctx: Filter<Context, "message:text">,
  deps: HandlerDeps,
  conversation: ConversationRef,
) {
  const { message, chat } = ctx;
  const mention = new RegExp(`@${ctx.me.username}\\b`, "gi");
  const reply = await deps.core.handleMessage?.({
    actor: actorOf(ctx.from),
    conversation,
    text: message.text.replace(mention, " "),
  });
  if (reply !== undefined) return deliver(deps, conversation, reply, { replyTo: message.message_id });
  if (chat.type === "private") await deliver(deps, conversation, errorReply(PRIVATE_HINT), {});
}

async function onButton(ctx: Filter<Context, "callback_query:data">, deps: HandlerDeps) {
  const query = ctx.callbackQuery;
  const message = query.message;
  const topic = message && "is_topic_message" in message ? topicOf(message) : undefined;
  const conversation = conversationOf(ctx.chat ?? { id: query.from.id }, topic);
  const invocation: Invocation = {
    kind: "action",
    actor: actorOf(query.from),
    conversation,
    token: query.data,
    ...(message !== undefined && { messageId: String(message.message_id) }),
  };
  const work = deps.core.handle(invocation, { confirmsDelivery: deps.core.delivered !== undefined });
  const quick = await within(work, deps.answerWithinMs);
  if (quick === undefined) await answer(ctx, deps);
  const reply = quick ?? (await work);
  if (reply.asks && deps.prompts) {
    if (quick !== undefined) await answer(ctx, deps);
    return askForButton(ctx, deps.prompts, reply.asks);
  }
  if (reply.visibility === "private" && !reply.replacesOriginal) {
    // "Already handled", "expired", "needs the operator role": for the clicker only, as a toast.
    if (quick !== undefined) return answer(ctx, deps, { text: toast(reply.summary), show_alert: true });
    return deliver(deps, conversation, reply, {});
  }
  if (quick !== undefined) await answer(ctx, deps);
  const rendered = renderReply(reply);
  try {
    // date 0: a message Telegram no longer lets us touch (older than 48 h).
    if (message && message.date !== 0) await deps.sender.replace(conversation, message.message_id, rendered);
    else await deps.sender.post(conversation, rendered);
  } catch (error) {
    // Delivered later in place of the clicked message, so it never shows twice.
    const replaces = message && message.date !== 0 ? { replaces: String(message.message_id) } : {};
    await deps.redeliver(
      conversation,
      { ...reply, replacesOriginal: false, answers: {}, ...replaces },
      error,
    );
  }
  // Posted, or queued durably: a confirmed spend's outcome is no longer owed by its recovery job.
  await deps.core.delivered?.(reply);
}

/** A button that asks first (a reason): a ForceReply prompt; the reply completes `asks.line`. */
async function askForButton(
  ctx: Filter<Context, "callback_query:data">,
  prompts: Prompts,
  asks: NonNullable<Reply["asks"]>,
): Promise<void> {
  const chatId = ctx.chat?.id ?? ctx.callbackQuery.from.id;
  // Not selective: Telegram would aim it at the author of a replied message (the bot); the prompt
  // is remembered for the person who pressed, and anyone else's answer is conversation.
  const sent = await ctx.api.sendMessage(chatId, asks.prompt, {
    reply_markup: { force_reply: true, input_field_placeholder: "the reason" },
  });
  await prompts.remember(chatId, sent.message_id, { verb: asks.line, userId: ctx.callbackQuery.from.id });
}

/**
 * Posts a person's answer now, as a reply to what they typed. One that cannot go now (a 429), or
 * that would overtake answers of this chat still queued, is queued whole, still as a reply to it.
 */
async function deliver(deps: HandlerDeps, conversation: ConversationRef, reply: Reply, options: PostOptions) {
  const answer: Reply = {
    ...reply,
    answers: options.replyTo === undefined ? {} : { messageId: String(options.replyTo) },
  };
  if (await deps.redeliver.behind(conversation)) return deps.redeliver.queue(conversation, answer);
  try {
    await deps.sender.post(conversation, renderReply(reply), options);
  } catch (error) {
    await deps.redeliver(conversation, answer, error);
  }
}

type AnswerOptions = { text?: string; show_alert?: boolean };

/** Every callback query is answered; a failed answer (query too old) must not stop the result. */
async function answer(ctx: Context, deps: HandlerDeps, options?: AnswerOptions): Promise<void> {
  try {
    await ctx.answerCallbackQuery(options);
  } catch (error) {
    deps.logger.warn({ err: error }, "telegram: could not answer a button click");
  }
}

/** A toast is plain text: control and bidi characters go as in messages, then it is cut to Telegram's limit. */
function toast(line: string): string {
  const shown = clean(line);
  if (shown.length <= TOAST_MAX) return shown;
  const cut = shown.slice(0, TOAST_MAX - 1);
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
