import { createReadStream } from "node:fs";
import { type Api, GrammyError, InputFile } from "grammy";
import type { ConversationRef, FileAttachment, ImageAttachment } from "../../src/core/index.js";
import { isNotModified } from "./errors.js";
import { escapeHtml } from "./render/escape.js";
import type { RenderedMessage } from "./render/html.js";
import { splitReply } from "./split.js";

/**
 * Posting a rendered reply with Telegram's limits: text split into messages of ≤ 4096
 * characters (the keyboard goes on the last one, so the buttons sit under the whole text), files
 * uploaded with sendDocument, pictures with sendPhoto (their summary as the caption). Errors are thrown as grammY raised them; callers classify them.
 */
export interface TelegramSender {
  /** Posts a new message (or several); returns the id of the first one. */
  post(conversation: ConversationRef, rendered: RenderedMessage, options?: PostOptions): Promise<number>;
  /** Replaces a message (after a button click): its text becomes the result, its buttons go. */
  replace(conversation: ConversationRef, messageId: number, rendered: RenderedMessage): Promise<void>;
}

export interface PostOptions {
  /** In groups a command's answer quotes the command, so it is clear whose answer it is. */
  replyTo?: number;
}

/** Telegram's limit on a document caption. */
const CAPTION_LIMIT = 1024;

export function createTelegramSender(api: Api): TelegramSender {
  async function sendChunks(
    conversation: ConversationRef,
    chunks: readonly string[],
    rendered: RenderedMessage,
    options: PostOptions,
  ): Promise<number[]> {
    const ids: number[] = [];
    for (const [index, chunk] of chunks.entries()) {
      const last = index === chunks.length - 1;
      const message = await api.sendMessage(chatIdOf(conversation), chunk, {
        ...textOptions,
        ...threadOf(conversation),
        ...(index === 0 && replyParameters(options.replyTo)),
        ...(last && rendered.keyboard && { reply_markup: rendered.keyboard }),
      });
      ids.push(message.message_id);
    }
    return ids;
  }

  async function sendFiles(
    conversation: ConversationRef,
    rendered: RenderedMessage,
    replyTo?: number,
  ): Promise<number[]> {
    const ids: number[] = [];
    for (const file of rendered.files) {
      const caption = captionOf(file, ids.length === 0 ? rendered.caption : undefined);
      const message = await api.sendDocument(
        chatIdOf(conversation),
        new InputFile(file.bytes ?? createReadStream(file.path), safeFilename(file.filename)),
        {
          ...threadOf(conversation),
          ...(ids.length === 0 && replyParameters(replyTo)),
          ...(caption !== undefined && { caption, parse_mode: "HTML" as const }),
        },
      );
      ids.push(message.message_id);
    }
    return ids;
  }

  async function sendPhotos(
    conversation: ConversationRef,
    photos: readonly ImageAttachment[],
    replyTo?: number,
  ): Promise<number[]> {
    const ids: number[] = [];
    for (const photo of photos) {
      const caption = clipCaption(escapeHtml(photo.summary));
      const message = await api.sendPhoto(
        chatIdOf(conversation),
        new InputFile(photo.png, safeFilename(photo.filename)),
        {
          ...threadOf(conversation),
          ...(ids.length === 0 && replyParameters(replyTo)),
          ...(caption !== "" && { caption, parse_mode: "HTML" as const }),
        },
      );
      ids.push(message.message_id);
    }
    return ids;
  }

  async function post(conversation: ConversationRef, rendered: RenderedMessage, options: PostOptions = {}) {
    // An order's follow-ups answer the message that showed the order (see `replyTo`).
    const replyTo = options.replyTo ?? messageIdOf(conversation.replyTo);
    const ids = await sendChunks(conversation, splitReply(rendered.html), rendered, {
      ...(replyTo !== undefined && { replyTo }),
    });
    ids.push(...(await sendFiles(conversation, rendered, ids.length === 0 ? replyTo : undefined)));
    ids.push(
      ...(await sendPhotos(conversation, rendered.photos ?? [], ids.length === 0 ? replyTo : undefined)),
    );
    const first = ids[0];
    if (first === undefined) throw new Error("nothing to send: the reply has no text and no file");
    return first;
  }

  async function replace(conversation: ConversationRef, messageId: number, rendered: RenderedMessage) {
    const [first, ...rest] = splitReply(rendered.html);
    try {
      if (first === undefined) {
        // A result of only files: the old text stays, its buttons go.
        await api.editMessageReplyMarkup(chatIdOf(conversation), messageId, {
          reply_markup: { inline_keyboard: [] },
        });
      } else {
        await api.editMessageText(chatIdOf(conversation), messageId, first, {
          ...textOptions,
          ...(rest.length === 0 && rendered.keyboard && { reply_markup: rendered.keyboard }),
        });
      }
    } catch (error) {
      if (isNotModified(error)) return;
      // Too old to edit, or deleted: the result still has to reach the chat.
      if (error instanceof GrammyError && error.error_code === 400) {
        await post(conversation, rendered);
        return;
      }
      throw error;
    }
    await sendChunks(conversation, rest, rendered, {});
    await sendFiles(conversation, rendered);
    await sendPhotos(conversation, rendered.photos ?? []);
  }

  return { post, replace };
}

const textOptions = { parse_mode: "HTML", link_preview_options: { is_disabled: true } } as const;

/** Chat ids travel as strings in the core; the Bot API takes numeric ids as numbers. */
const chatIdOf = (conversation: ConversationRef): number | string =>
  /^-?\d{1,16}$/.test(conversation.id) ? Number(conversation.id) : conversation.id;

/**
 * Answer a message; when it is gone (deleted), Telegram posts without the quote instead of
 * refusing ("message to be replied not found").
 */
function replyParameters(replyTo: number | undefined) {
  return replyTo === undefined
    ? {}
    : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } };
}

function messageIdOf(id: string | undefined): number | undefined {
  const n = id === undefined ? Number.NaN : Number(id);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Telegram forum topics: the thread a conversation lives in. */
function threadOf(conversation: ConversationRef): { message_thread_id?: number } {
  const thread = conversation.threadId === undefined ? Number.NaN : Number(conversation.threadId);
  return Number.isSafeInteger(thread) ? { message_thread_id: thread } : {};
}

export function captionOf(file: FileAttachment, fallback: string | undefined): string | undefined {
  const caption = file.title === undefined ? fallback : escapeHtml(file.title);
  if (caption === undefined || caption === "") return undefined;
  return clipCaption(caption);
}

/** An escaped caption within Telegram's limit. */
function clipCaption(caption: string): string {
  // Cutting HTML could split an entity; a caption is one plain escaped line, so cut before any "&".
  if (caption.length <= CAPTION_LIMIT) return caption;
  const cut = caption.slice(0, CAPTION_LIMIT - 1);
  const amp = cut.lastIndexOf("&");
  return `${amp > cut.lastIndexOf(";") ? cut.slice(0, amp) : cut}…`;
}

/** grammY writes the name into a multipart header as is: keep a plain, safe base name. */
function safeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  return cleaned.length > 0 ? cleaned.slice(0, 100) : "file";
}
