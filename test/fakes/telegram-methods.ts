import type { ServerResponse } from "node:http";
import { parseTelegramHtml } from "./telegram-html.js";
import type { UploadedFile } from "./telegram-multipart.js";
import type { UpdateQueue } from "./telegram-updates.js";

/**
 * The Bot API methods the fake answers, with Telegram's own refusals: HTML it cannot parse, text
 * over 4096 characters, callback_data over 64 bytes, an edit that changes nothing, a chat that
 * blocked the bot. State is plain data the fake's owner reads in tests.
 */
interface InlineMarkup {
  inline_keyboard: { text: string; callback_data?: string; url?: string }[][];
}

export interface FakeMessage {
  message_id: number;
  chatId: string;
  /** The visible text (entities decoded) and the raw HTML as sent. */
  text: string;
  html: string;
  replyMarkup?: InlineMarkup;
  document?: { filename: string; bytes: Buffer; caption?: string };
  /** A photo (sendPhoto): the bytes as uploaded, their PNG size, the caption's visible text. */
  photo?: { filename: string; bytes: Buffer; width: number; height: number; caption?: string };
  threadId?: number;
  replyTo?: number;
  /** Sent with ForceReply markup: the client asks the (selective: addressed) user to reply. */
  forceReply?: { selective: boolean };
}

export interface Answer {
  status: number;
  body: unknown;
}

export interface FakeState {
  me: { id: number; is_bot: true; first_name: string; username: string };
  messages: FakeMessage[];
  /** Chat id → the refusal every call into it gets. */
  refusedChats: Map<string, Answer>;
  webhook: { url?: string; secretToken?: string };
  commands: { command: string; description: string }[];
  nextMessageId: number;
  updates: UpdateQueue;
  /** `<chat id>:<message id>` of messages deleted in the chat. */
  deleted: Set<string>;
}

type Params = Record<string, unknown>;
export type Method = (params: Params, files: UploadedFile[], res: ServerResponse) => Promise<Answer> | Answer;

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
export const bad = (status: number, description: string, parameters?: unknown): Answer => ({
  status,
  body: { ok: false, error_code: status, description, ...(parameters !== undefined && { parameters }) },
});

export function createMethods(state: FakeState): Record<string, Method> {
  return {
    getMe: () => ok(state.me),
    setWebhook: (p) => {
      const secret = typeof p.secret_token === "string" ? { secretToken: p.secret_token } : {};
      state.webhook = { url: String(p.url ?? ""), ...secret };
      return ok(true);
    },
    deleteWebhook: () => {
      state.webhook = {};
      return ok(true);
    },
    setMyCommands: (p) => setMyCommands(state, p),
    sendMessage: (p) => sendMessage(state, p),
    editMessageText: (p) => editMessageText(state, p),
    editMessageReplyMarkup: (p) => editMessageReplyMarkup(state, p),
    answerCallbackQuery: (p) => answerCallbackQuery(p),
    sendDocument: (p, files) => sendDocument(state, p, files),
    sendPhoto: (p, files) => sendPhoto(state, p, files),
    getUpdates: async (p, _files, res) => ok(await state.updates.take(p, res)),
  };
}

function setMyCommands(state: FakeState, p: Params): Answer {
  const list = p.commands as { command: string; description: string }[];
  for (const c of list) {
    if (!/^[a-z0-9_]{1,32}$/.test(c.command)) return bad(400, "Bad Request: BOT_COMMAND_INVALID");
    if (c.description.length < 1 || c.description.length > 256) {
      return bad(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
    }
  }
  state.commands = list;
  return ok(true);
}

function sendMessage(state: FakeState, p: Params): Answer {
  const refusal = chatRefusal(state, p) ?? checkMarkup(p.reply_markup) ?? replyRefusal(state, p);
  if (refusal) return refusal;
  const read = readText(p, "text", TEXT_LIMIT);
  if ("error" in read) return read.error;
  const markup = p.reply_markup as (InlineMarkup & ForceReplyMarkup) | undefined;
  const forceReply = markup?.force_reply === true;
  const message = store(state, p, {
    text: read.text,
    html: read.html,
    ...(markup && !forceReply && { replyMarkup: markup }),
    ...(forceReply && { forceReply: { selective: markup.selective === true } }),
  });
  return ok(toApiMessage(message));
}

function editMessageText(state: FakeState, p: Params): Answer {
  const refusal = chatRefusal(state, p) ?? checkMarkup(p.reply_markup);
  if (refusal) return refusal;
  const message = findMessage(state, p);
  if (!message) return bad(400, "Bad Request: message to edit not found");
  const read = readText(p, "text", TEXT_LIMIT);
  if ("error" in read) return read.error;
  const markup = p.reply_markup as InlineMarkup | undefined;
  if (read.html === message.html && JSON.stringify(markup) === JSON.stringify(message.replyMarkup)) {
    return bad(400, NOT_MODIFIED);
  }
  Object.assign(message, { text: read.text, html: read.html });
  // Like Telegram: an edit without reply_markup removes the inline keyboard.
  if (markup) message.replyMarkup = markup;
  else delete message.replyMarkup;
  return ok(toApiMessage(message));
}

function editMessageReplyMarkup(state: FakeState, p: Params): Answer {
  const refusal = chatRefusal(state, p) ?? checkMarkup(p.reply_markup);
  if (refusal) return refusal;
  const message = findMessage(state, p);
  if (!message) return bad(400, "Bad Request: message to edit not found");
  const markup = p.reply_markup as InlineMarkup | undefined;
  if (markup && markup.inline_keyboard.length > 0) message.replyMarkup = markup;
  else delete message.replyMarkup;
  return ok(toApiMessage(message));
}

function answerCallbackQuery(p: Params): Answer {
  if (typeof p.callback_query_id !== "string" || p.callback_query_id === "") {
    return bad(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
  }
  if (typeof p.text === "string" && p.text.length > 200) return bad(400, "Bad Request: MESSAGE_TOO_LONG");
  return ok(true);
}

function sendDocument(state: FakeState, p: Params, files: UploadedFile[]): Answer {
  const refusal = chatRefusal(state, p) ?? checkMarkup(p.reply_markup);
  if (refusal) return refusal;
  const ref = typeof p.document === "string" ? p.document : "";
  const file = files.find((f) => ref === `attach://${f.field}`);
  if (!file) return bad(400, "Bad Request: there is no document in the request");
  if (file.bytes.length === 0) return bad(400, "Bad Request: file must be non-empty");
  const caption = p.caption === undefined ? undefined : readText(p, "caption", CAPTION_LIMIT);
  if (caption && "error" in caption) return caption.error;
  const document = { filename: file.filename, bytes: file.bytes, ...(caption && { caption: caption.text }) };
  return ok(
    toApiMessage(store(state, p, { document, text: caption?.text ?? "", html: caption?.html ?? "" })),
  );
}

/**
 * sendPhoto with an uploaded file, as Telegram checks it: an image it can read (PNG here), at
 * most 10 MB, width + height at most 10000, a side ratio at most 20, a caption of ≤ 1024 characters.
 */
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;

function sendPhoto(state: FakeState, p: Params, files: UploadedFile[]): Answer {
  const refusal = chatRefusal(state, p) ?? checkMarkup(p.reply_markup) ?? replyRefusal(state, p);
  if (refusal) return refusal;
  const ref = typeof p.photo === "string" ? p.photo : "";
  const file = files.find((f) => ref === `attach://${f.field}`);
  if (!file) return bad(400, "Bad Request: there is no photo in the request");
  const size = pngSize(file.bytes);
  if (!size) return bad(400, "Bad Request: IMAGE_PROCESS_FAILED");
  const { width, height } = size;
  if (
    file.bytes.length > PHOTO_MAX_BYTES ||
    width + height > 10_000 ||
    Math.max(width / height, height / width) > 20
  ) {
    return bad(400, "Bad Request: PHOTO_INVALID_DIMENSIONS");
  }
  const caption = p.caption === undefined ? undefined : readText(p, "caption", CAPTION_LIMIT);
  if (caption && "error" in caption) return caption.error;
  const photo = {
    filename: file.filename,
    bytes: file.bytes,
    width,
    height,
    ...(caption && { caption: caption.text }),
  };
  return ok(toApiMessage(store(state, p, { photo, text: caption?.text ?? "", html: caption?.html ?? "" })));
}

/** Width and height from a PNG's IHDR chunk; undefined when the bytes are not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  const signature = "89504e470d0a1a0a";
  if (bytes.length < 24 || bytes.subarray(0, 8).toString("hex") !== signature) return undefined;
  if (bytes.subarray(12, 16).toString("ascii") !== "IHDR") return undefined;
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** A reply to a deleted message: refused unless the bot allowed sending without the quote. */
function replyRefusal(state: FakeState, params: Params): Answer | undefined {
  const target = replyTarget(params);
  if (target === undefined || !state.deleted.has(`${String(params.chat_id)}:${target}`)) return undefined;
  const parameters = params.reply_parameters as { allow_sending_without_reply?: unknown } | undefined;
  return parameters?.allow_sending_without_reply === true
    ? undefined
    : bad(400, "Bad Request: message to be replied not found");
}

function chatRefusal(state: FakeState, params: Params): Answer | undefined {
  const chatId = params.chat_id;
  if (chatId === undefined || chatId === "") return bad(400, "Bad Request: chat_id is empty");
  return state.refusedChats.get(String(chatId));
}

/** Telegram's ForceReply: the client opens a reply to the message (only for `selective` targets). */
interface ForceReplyMarkup {
  force_reply?: boolean;
  selective?: boolean;
  input_field_placeholder?: string;
}

function checkMarkup(markup: unknown): Answer | undefined {
  if (markup === undefined) return undefined;
  const force = markup as ForceReplyMarkup;
  if (force.force_reply !== undefined) {
    const placeholder = force.input_field_placeholder ?? "";
    if (force.force_reply !== true || placeholder.length > 64) {
      return bad(400, "Bad Request: can't parse reply keyboard markup JSON object");
    }
    return undefined;
  }
  const rows = (markup as InlineMarkup).inline_keyboard;
  if (!Array.isArray(rows)) return bad(400, "Bad Request: can't parse reply keyboard markup JSON object");
  for (const button of rows.flat()) {
    const bytes = button.callback_data === undefined ? 1 : Buffer.byteLength(button.callback_data);
    if (bytes < 1 || bytes > 64) return bad(400, "Bad Request: BUTTON_DATA_INVALID");
    if (button.text.trim() === "")
      return bad(400, "Bad Request: text buttons are unallowed in the inline keyboard");
  }
  return undefined;
}

type ReadText = { error: Answer } | { text: string; html: string };

function readText(params: Params, key: "text" | "caption", limit: number): ReadText {
  const raw = typeof params[key] === "string" ? (params[key] as string) : "";
  const parsed = params.parse_mode === "HTML" ? parseTelegramHtml(raw) : { ok: true as const, text: raw };
  if (!parsed.ok) return { error: bad(400, parsed.error) };
  if (key === "text" && parsed.text.trim() === "")
    return { error: bad(400, "Bad Request: message text is empty") };
  if (parsed.text.length > limit) {
    return { error: bad(400, `Bad Request: message ${key === "text" ? "is" : "caption is"} too long`) };
  }
  return { text: parsed.text, html: raw };
}

function store(state: FakeState, params: Params, fields: Partial<FakeMessage>): FakeMessage {
  const thread = params.message_thread_id === undefined ? undefined : Number(params.message_thread_id);
  const target = replyTarget(params);
  // Like Telegram: a reply to a deleted message, when allowed, is posted without the quote.
  const replyTo =
    target !== undefined && state.deleted.has(`${String(params.chat_id)}:${target}`) ? undefined : target;
  const message: FakeMessage = {
    message_id: state.nextMessageId++,
    chatId: String(params.chat_id),
    text: "",
    html: "",
    ...(thread !== undefined && { threadId: thread }),
    ...(replyTo !== undefined && { replyTo }),
    ...fields,
  };
  state.messages.push(message);
  return message;
}

const findMessage = (state: FakeState, params: Params) =>
  state.messages.find(
    (m) => m.chatId === String(params.chat_id) && m.message_id === Number(params.message_id),
  );

function replyTarget(params: Params): number | undefined {
  const parameters = params.reply_parameters as { message_id?: unknown } | undefined;
  if (typeof parameters?.message_id === "number") return parameters.message_id;
  return typeof params.reply_to_message_id === "number" ? params.reply_to_message_id : undefined;
}

function toApiMessage(m: FakeMessage) {
  const document = m.document && {
    file_id: `file-${m.message_id}`,
    file_unique_id: `u${m.message_id}`,
    file_name: m.document.filename,
    file_size: m.document.bytes.length,
  };
  return {
    message_id: m.message_id,
    date: Math.floor(Date.now() / 1000),
    chat: { id: Number(m.chatId), type: m.chatId.startsWith("-") ? "supergroup" : "private" },
    text: m.text,
    ...(m.replyMarkup && { reply_markup: m.replyMarkup }),
    ...(document && { document }),
    ...(m.photo && {
      photo: [
        {
          file_id: `photo-${m.message_id}`,
          file_unique_id: `p${m.message_id}`,
          width: m.photo.width,
          height: m.photo.height,
          file_size: m.photo.bytes.length,
        },
      ],
      ...(m.photo.caption !== undefined && { caption: m.photo.caption }),
    }),
  };
}
