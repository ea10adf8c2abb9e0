import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseTelegramHtml } from "./telegram-html.js";
import { parseBotApiBody, type UploadedFile } from "./telegram-multipart.js";

/**
 * A fake Telegram Bot API over real HTTP (grammY's `client.apiRoot`): `/bot<token>/<method>` for
 * the methods the bot uses, with Telegram's own refusals (bad HTML, too long, button data over
 * 64 bytes, unknown chat, blocked bot). It records every call and can answer 429 with
 * `parameters.retry_after` or 500, to simulate limits and outages.
 */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  files: UploadedFile[];
  at: number;
  /** The HTTP status the fake answered. */
  status: number;
}

export interface FakeMessage {
  message_id: number;
  chatId: string;
  /** The visible text (entities decoded) and the raw HTML as sent. */
  text: string;
  html: string;
  replyMarkup?: InlineMarkup;
  document?: { filename: string; bytes: Buffer; caption?: string };
  threadId?: number;
  replyTo?: number;
}

export interface InlineMarkup {
  inline_keyboard: { text: string; callback_data?: string; url?: string }[][];
}

export type FakeFailure =
  | { kind: "429"; retryAfter: number }
  | { kind: "500" }
  | { kind: "error"; code: number; description: string };

type Answer = { status: number; body: unknown };
type Handler = (
  params: Record<string, unknown>,
  files: UploadedFile[],
  res: ServerResponse,
) => Promise<Answer>;

export interface FakeTelegramOptions {
  token?: string;
  botId?: number;
  username?: string;
}

export const FAKE_BOT_TOKEN = "123456:TEST-token_abc";
const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

export type FakeTelegramApi = Awaited<ReturnType<typeof createFakeTelegramApi>>;

export async function createFakeTelegramApi(options: FakeTelegramOptions = {}) {
  const token = options.token ?? FAKE_BOT_TOKEN;
  const me = {
    id: options.botId ?? 123456,
    is_bot: true,
    first_name: "Ops",
    username: options.username ?? "opsbot_test_bot",
  };
  const calls: TelegramCall[] = [];
  const failures: { method: string; failure: FakeFailure; remaining: number }[] = [];
  const messages: FakeMessage[] = [];
  const refusedChats = new Map<string, Answer>();
  const polling = createUpdateQueue();
  const state = {
    webhook: {} as { url?: string; secretToken?: string },
    commands: [] as { command: string; description: string }[],
    nextMessageId: 1000,
  };

  const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
  const bad = (status: number, description: string, parameters?: unknown): Answer => ({
    status,
    body: { ok: false, error_code: status, description, ...(parameters !== undefined && { parameters }) },
  });

  function chatRefusal(params: Record<string, unknown>): Answer | undefined {
    const chatId = params.chat_id;
    if (chatId === undefined || chatId === "") return bad(400, "Bad Request: chat_id is empty");
    return refusedChats.get(String(chatId));
  }

  function checkMarkup(markup: unknown): Answer | undefined {
    if (markup === undefined) return undefined;
    const rows = (markup as InlineMarkup).inline_keyboard;
    if (!Array.isArray(rows)) return bad(400, "Bad Request: can't parse reply keyboard markup JSON object");
    for (const button of rows.flat()) {
      const data = button.callback_data;
      if (data !== undefined && (Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)) {
        return bad(400, "Bad Request: BUTTON_DATA_INVALID");
      }
    }
    return undefined;
  }

  function readText(params: Record<string, unknown>, key: string, limit: number) {
    const raw = typeof params[key] === "string" ? (params[key] as string) : "";
    const parsed = params.parse_mode === "HTML" ? parseTelegramHtml(raw) : { ok: true as const, text: raw };
    if (!parsed.ok) return { error: bad(400, parsed.error) };
    if (key === "text" && parsed.text.trim() === "")
      return { error: bad(400, "Bad Request: message text is empty") };
    if (parsed.text.length > limit)
      return { error: bad(400, `Bad Request: message ${key === "text" ? "is" : "caption is"} too long`) };
    return { text: parsed.text, html: raw };
  }

  function store(params: Record<string, unknown>, fields: Partial<FakeMessage>): FakeMessage {
    const message: FakeMessage = {
      message_id: state.nextMessageId++,
      chatId: String(params.chat_id),
      text: "",
      html: "",
      ...(typeof params.message_thread_id === "number" && { threadId: params.message_thread_id }),
      ...(replyTarget(params) !== undefined && { replyTo: replyTarget(params) }),
      ...fields,
    };
    messages.push(message);
    return message;
  }

  const toApiMessage = (m: FakeMessage) => ({
    message_id: m.message_id,
    date: Math.floor(Date.now() / 1000),
    chat: { id: Number(m.chatId), type: m.chatId.startsWith("-") ? "supergroup" : "private" },
    text: m.text,
    ...(m.replyMarkup && { reply_markup: m.replyMarkup }),
    ...(m.document && {
      document: {
        file_id: `file-${m.message_id}`,
        file_unique_id: `u${m.message_id}`,
        file_name: m.document.filename,
        file_size: m.document.bytes.length,
      },
    }),
  });

  const findMessage = (params: Record<string, unknown>) =>
    messages.find((m) => m.chatId === String(params.chat_id) && m.message_id === Number(params.message_id));

  const handlers: Record<string, Handler> = {
    getMe: async () => ok(me),
    setWebhook: async (p) => {
      state.webhook = {
        url: String(p.url ?? ""),
        ...(typeof p.secret_token === "string" && { secretToken: p.secret_token }),
      };
      return ok(true);
    },
    deleteWebhook: async () => {
      state.webhook = {};
      return ok(true);
    },
    setMyCommands: async (p) => {
      const list = p.commands as { command: string; description: string }[];
      for (const c of list) {
        if (!/^[a-z0-9_]{1,32}$/.test(c.command)) return bad(400, "Bad Request: BOT_COMMAND_INVALID");
        if (c.description.length < 1 || c.description.length > 256)
          return bad(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
      }
      state.commands = list;
      return ok(true);
    },
    sendMessage: async (p) => {
      const refusal = chatRefusal(p) ?? checkMarkup(p.reply_markup);
      if (refusal) return refusal;
      const read = readText(p, "text", TEXT_LIMIT);
      if ("error" in read) return read.error as Answer;
      const markup = p.reply_markup as InlineMarkup | undefined;
      return ok(
        toApiMessage(store(p, { text: read.text, html: read.html, ...(markup && { replyMarkup: markup }) })),
      );
    },
    editMessageText: async (p) => {
      const refusal = chatRefusal(p) ?? checkMarkup(p.reply_markup);
      if (refusal) return refusal;
      const message = findMessage(p);
      if (!message) return bad(400, "Bad Request: message to edit not found");
      const read = readText(p, "text", TEXT_LIMIT);
      if ("error" in read) return read.error as Answer;
      const markup = p.reply_markup as InlineMarkup | undefined;
      if (read.html === message.html && JSON.stringify(markup) === JSON.stringify(message.replyMarkup)) {
        return bad(
          400,
          "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      Object.assign(message, { text: read.text, html: read.html });
      if (markup) message.replyMarkup = markup;
      else delete message.replyMarkup;
      return ok(toApiMessage(message));
    },
    editMessageReplyMarkup: async (p) => {
      const refusal = chatRefusal(p) ?? checkMarkup(p.reply_markup);
      if (refusal) return refusal;
      const message = findMessage(p);
      if (!message) return bad(400, "Bad Request: message to edit not found");
      const markup = p.reply_markup as InlineMarkup | undefined;
      if (markup && markup.inline_keyboard.length > 0) message.replyMarkup = markup;
      else delete message.replyMarkup;
      return ok(toApiMessage(message));
    },
    answerCallbackQuery: async (p) => {
      if (typeof p.callback_query_id !== "string" || p.callback_query_id === "") {
        return bad(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
      }
      if (typeof p.text === "string" && p.text.length > 200) return bad(400, "Bad Request: MESSAGE_TOO_LONG");
      return ok(true);
    },
    sendDocument: async (p, files) => {
      const refusal = chatRefusal(p) ?? checkMarkup(p.reply_markup);
      if (refusal) return refusal;
      const ref = typeof p.document === "string" ? p.document : "";
      const file = files.find((f) => ref === `attach://${f.field}`);
      if (!file) return bad(400, "Bad Request: there is no document in the request");
      if (file.bytes.length === 0) return bad(400, "Bad Request: file must be non-empty");
      const caption = p.caption === undefined ? undefined : readText(p, "caption", CAPTION_LIMIT);
      if (caption && "error" in caption) return caption.error as Answer;
      const document = {
        filename: file.filename,
        bytes: file.bytes,
        ...(caption && { caption: caption.text }),
      };
      return ok(toApiMessage(store(p, { document, text: caption?.text ?? "", html: caption?.html ?? "" })));
    },
    getUpdates: async (p, _files, res) => ok(await polling.take(p, res)),
  };

  function takeFailure(method: string): FakeFailure | undefined {
    const index = failures.findIndex((f) => f.method === method || f.method === "*");
    const found = failures[index];
    if (!found) return undefined;
    found.remaining -= 1;
    if (found.remaining <= 0) failures.splice(index, 1);
    return found.failure;
  }

  function failureAnswer(failure: FakeFailure): Answer {
    if (failure.kind === "429") {
      return bad(429, `Too Many Requests: retry after ${failure.retryAfter}`, {
        retry_after: failure.retryAfter,
      });
    }
    if (failure.kind === "500") return bad(500, "Internal Server Error");
    return bad(failure.code, failure.description);
  }

  async function answer(
    res: ServerResponse,
    method: string,
    params: Record<string, unknown>,
    files: UploadedFile[],
  ): Promise<Answer> {
    const failure = method === "getUpdates" ? undefined : takeFailure(method);
    if (failure) return failureAnswer(failure);
    const handler = handlers[method];
    return handler ? handler(params, files, res) : bad(404, "Not Found: method not found");
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(req.url ?? "/", "http://fake").pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!match) return reply(res, bad(404, "Not Found"));
    if (match[1] !== token) return reply(res, bad(401, "Unauthorized"));
    const method = match[2] ?? "";
    const { params, files } = parseBotApiBody(
      String(req.headers["content-type"] ?? ""),
      Buffer.concat(chunks),
    );
    const result = await answer(res, method, params, files);
    calls.push({ method, params, files, at: Date.now(), status: result.status });
    reply(res, result);
  }

  const server = createServer((req, res) => {
    dispatch(req, res).catch((error: unknown) => reply(res, bad(500, `fake failed: ${String(error)}`)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    /** grammY's `client.apiRoot` (TELEGRAM_API_ROOT). */
    url,
    token,
    me,
    calls: (method?: string): TelegramCall[] =>
      method ? calls.filter((c) => c.method === method) : [...calls],
    /** The next `times` calls of `method` ("*": any method) fail this way. */
    fail(method: string, failure: FakeFailure, times = 1): void {
      failures.push({ method, failure, remaining: times });
    },
    /** Every later call into this chat fails like Telegram's 403 for a bot the user blocked. */
    refuseChat(
      chatId: number | string,
      status = 403,
      description = "Forbidden: bot was blocked by the user",
    ): void {
      refusedChats.set(String(chatId), bad(status, description));
    },
    /** The bot's messages in a chat, oldest first, with edits applied. */
    messages: (chatId: number | string): FakeMessage[] => messages.filter((m) => m.chatId === String(chatId)),
    /** Queues an update for long polling (`getUpdates`); returns its update_id. */
    pushUpdate: (update: Record<string, unknown>): number => polling.push(update),
    get webhook() {
      return state.webhook;
    },
    get commands() {
      return state.commands;
    },
    /** Polls `probe` until it returns something other than undefined/false. */
    async waitFor<T>(probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error("fake Telegram API: timed out waiting");
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close(): Promise<void> {
      polling.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function replyTarget(params: Record<string, unknown>): number | undefined {
  const parameters = params.reply_parameters as { message_id?: unknown } | undefined;
  if (typeof parameters?.message_id === "number") return parameters.message_id;
  return typeof params.reply_to_message_id === "number" ? params.reply_to_message_id : undefined;
}

function reply(res: ServerResponse, answer: Answer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, { "content-type": "application/json" });
  res.end(JSON.stringify(answer.body));
}

/** getUpdates: answers at once when updates wait, else holds the request up to `timeout` seconds. */
function createUpdateQueue() {
  let pending: Record<string, unknown>[] = [];
  let nextId = 1;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  return {
    push(update: Record<string, unknown>): number {
      const id = typeof update.update_id === "number" ? update.update_id : nextId++;
      pending.push({ ...update, update_id: id });
      wake();
      return id;
    },
    async take(params: Record<string, unknown>, res: ServerResponse): Promise<Record<string, unknown>[]> {
      const offset = typeof params.offset === "number" ? params.offset : 0;
      pending = pending.filter((u) => (u.update_id as number) >= offset);
      const limit = typeof params.limit === "number" ? params.limit : 100;
      const timeoutMs = (typeof params.timeout === "number" ? params.timeout : 0) * 1000;
      if (pending.length === 0 && timeoutMs > 0) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          waiters.add(done);
          // The client gave up (grammY aborts the poll on stop): answer nobody.
          res.once("close", done);
        });
      }
      return pending.slice(0, limit);
    },
    close: wake,
  };
}
