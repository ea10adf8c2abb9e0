import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Answer, bad, createMethods, type FakeMessage, type FakeState } from "./telegram-methods.js";
import { parseBotApiBody, type UploadedFile } from "./telegram-multipart.js";
import { createUpdateQueue } from "./telegram-updates.js";

export type { FakeMessage } from "./telegram-methods.js";

/**
 * A fake Telegram Bot API over real HTTP (grammY's `client.apiRoot`, TELEGRAM_API_ROOT):
 * `/bot<token>/<method>` for getMe, setWebhook, deleteWebhook, setMyCommands, sendMessage,
 * editMessageText, editMessageReplyMarkup, answerCallbackQuery, sendDocument and sendPhoto (multipart) and
 * getUpdates (long polling). It records every call and can answer 429 with
 * `parameters.retry_after`, 500, or any error, to simulate limits and outages.
 */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  files: UploadedFile[];
  at: number;
  /** The HTTP status the fake answered. */
  status: number;
}

type FakeFailure =
  | { kind: "429"; retryAfter: number }
  | { kind: "500" }
  | { kind: "error"; code: number; description: string };

export interface FakeTelegramOptions {
  token?: string;
  botId?: number;
  username?: string;
}

export const FAKE_BOT_TOKEN = "123456:TEST-token_abc";

export type FakeTelegramApi = Awaited<ReturnType<typeof createFakeTelegramApi>>;

export async function createFakeTelegramApi(options: FakeTelegramOptions = {}) {
  const token = options.token ?? FAKE_BOT_TOKEN;
  const state: FakeState = {
    me: {
      id: options.botId ?? 123456,
      is_bot: true,
      first_name: "Ops",
      username: options.username ?? "opsbot_test_bot",
    },
    messages: [],
    refusedChats: new Map(),
    webhook: {},
    commands: [],
    nextMessageId: 1000,
    updates: createUpdateQueue(),
    deleted: new Set(),
  };
  const methods = createMethods(state);
  const calls: TelegramCall[] = [];
  const failures = createFailures();
  const limits = createChatLimits();

  /** Documents users sent, by file_id: `getFile` names them, `/file/bot<token>/<path>` serves them. */
  const userFiles = new Map<string, { path: string; bytes: Buffer; sized: boolean }>();

  function serveFile(pathname: string, res: ServerResponse): boolean {
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
    if (!file) return false;
    const found = [...userFiles.values()].find((f) => f.path === file[2]);
    calls.push({ method: "file", params: { path: file[2] }, files: [], at: Date.now(), status: 200 });
    if (file[1] !== token || !found) {
      res.writeHead(404).end();
      return true;
    }
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(found.bytes);
    return true;
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? "/", "http://fake").pathname;
    if (serveFile(pathname, res)) return;
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!match) return reply(res, bad(404, "Not Found"));
    if (match[1] !== token) return reply(res, bad(401, "Unauthorized"));
    const method = match[2] ?? "";
    const { params, files } = parseBotApiBody(
      String(req.headers["content-type"] ?? ""),
      Buffer.concat(chunks),
    );
    const failure =
      method === "getUpdates" ? undefined : (failures.take(method) ?? limits.take(method, params.chat_id));
    const handler =
      method === "getFile"
        ? (p: Record<string, unknown>) => {
            const file = userFiles.get(String(p.file_id));
            if (!file) return bad(400, "Bad Request: invalid file_id");
            const result = {
              file_id: p.file_id,
              ...(file.sized && { file_size: file.bytes.length }),
              file_path: file.path,
            };
            return { status: 200, body: { ok: true, result } };
          }
        : methods[method];
    const result =
      failure ?? (handler ? await handler(params, files, res) : bad(404, "Not Found: method not found"));
    calls.push({ method, params, files, at: Date.now(), status: result.status });
    reply(res, result);
  }

  const server = createServer((req, res) => {
    dispatch(req, res).catch((error: unknown) => reply(res, bad(500, `fake failed: ${String(error)}`)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    /** grammY's `client.apiRoot` (TELEGRAM_API_ROOT). */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    me: state.me,
    calls: (method?: string): TelegramCall[] =>
      method ? calls.filter((c) => c.method === method) : [...calls],
    /** The next `times` calls of `method` ("*": any method but getUpdates) fail this way. */
    fail: failures.add,
    /**
     * Telegram's pace for a group (about 20 messages a minute): after `allow` more messages into
     * the chat, every send into it is answered 429 with `retry_after` until `liftLimit`.
     */
    limitChat: limits.limit,
    /** The chat's minute has passed: sends into it are taken again. */
    liftLimit: limits.lift,
    /** About 20 messages a minute in a group, counted on the test's clock (sliding minute). */
    paceChat: limits.pace,
    /** Every later call into this chat is refused, by default like Telegram for a bot the user blocked. */
    refuseChat(
      chatId: number | string,
      status = 403,
      description = "Forbidden: bot was blocked by the user",
    ): void {
      state.refusedChats.set(String(chatId), bad(status, description));
    },
    /** The bot's messages in a chat, oldest first, with edits applied. */
    messages: (chatId: number | string): FakeMessage[] =>
      state.messages.filter((m) => m.chatId === String(chatId)),
    /** Someone deletes a message in a chat (the bot's or a user's): replies to it find nothing. */
    deleteMessage(chatId: number | string, messageId: number): void {
      state.deleted.add(`${String(chatId)}:${messageId}`);
      state.messages = state.messages.filter(
        (m) => !(m.chatId === String(chatId) && m.message_id === messageId),
      );
    },
    /**
     * A document a user sends: its file_id for the update; `getFile` and the file URL serve it.
     * `sized: false`: `getFile` gives no file_size (the Bot API's File.file_size is optional).
     */
    userFile(
      name: string,
      bytes: Buffer,
      options: { sized?: boolean } = {},
    ): { file_id: string; file_unique_id: string; file_size: number } {
      const id = `BQAC${userFiles.size + 1}${Date.now().toString(36)}`;
      userFiles.set(id, {
        path: `documents/file_${userFiles.size}_${name}`,
        bytes,
        sized: options.sized ?? true,
      });
      return { file_id: id, file_unique_id: `u${id}`, file_size: bytes.length };
    },
    /** Queues an update for long polling (`getUpdates`); returns its update_id. */
    pushUpdate: (update: Record<string, unknown>): number => state.updates.push(update),
    /** Long polls: how many are held now, and how many the bot gave up before they were answered. */
    polls: { held: () => state.updates.held(), abandoned: () => state.updates.abandoned() },
    get webhook() {
      return state.webhook;
    },
    get commands() {
      return state.commands;
    },
    /** Polls `probe` until it returns something other than undefined/false. */
    waitFor: <T>(probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> =>
      waitFor(probe, timeoutMs),
    async close(): Promise<void> {
      state.updates.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function createFailures() {
  const queued: { method: string; failure: FakeFailure; remaining: number }[] = [];
  return {
    add(method: string, failure: FakeFailure, times = 1): void {
      queued.push({ method, failure, remaining: times });
    },
    take(method: string): Answer | undefined {
      const index = queued.findIndex((f) => f.method === method || f.method === "*");
      const found = queued[index];
      if (!found) return undefined;
      found.remaining -= 1;
      if (found.remaining <= 0) queued.splice(index, 1);
      return failureAnswer(found.failure);
    },
  };
}

const SEND_METHODS = new Set(["sendMessage", "sendDocument", "sendPhoto"]);

function createChatLimits() {
  const chats = new Map<string, { left: number; retryAfter: number }>();
  /** Chats under a sliding minute: the send times taken, on the test's clock. */
  const paced = new Map<string, { perMinute: number; now: () => number; sent: number[] }>();
  const takePaced = (chatId: string): Answer | undefined => {
    const pace = paced.get(chatId);
    if (pace === undefined) return undefined;
    const now = pace.now();
    while (pace.sent.length > 0 && (pace.sent[0] ?? 0) <= now - 60_000) pace.sent.shift();
    if (pace.sent.length < pace.perMinute) {
      pace.sent.push(now);
      return undefined;
    }
    const retryAfter = Math.max(1, Math.ceil(((pace.sent[0] ?? now) + 60_000 - now) / 1000));
    return failureAnswer({ kind: "429", retryAfter });
  };
  return {
    /** Telegram's pace for a group as a sliding minute on `now`: beyond `perMinute`, 429 with the wait. */
    pace(chatId: number | string, o: { perMinute: number; now: () => number }): void {
      paced.set(String(chatId), { ...o, sent: [] });
    },
    limit(chatId: number | string, o: { allow: number; retryAfter: number }): void {
      chats.set(String(chatId), { left: o.allow, retryAfter: o.retryAfter });
    },
    lift(chatId: number | string): void {
      chats.delete(String(chatId));
    },
    take(method: string, chatId: unknown): Answer | undefined {
      if (SEND_METHODS.has(method) && paced.has(String(chatId))) return takePaced(String(chatId));
      const limit = SEND_METHODS.has(method) ? chats.get(String(chatId)) : undefined;
      if (limit === undefined) return undefined;
      if (limit.left > 0) {
        limit.left -= 1;
        return undefined;
      }
      return failureAnswer({ kind: "429", retryAfter: limit.retryAfter });
    },
  };
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

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`fake Telegram API: timed out after ${timeoutMs} ms waiting`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function reply(res: ServerResponse, answer: Answer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, { "content-type": "application/json" });
  res.end(JSON.stringify(answer.body));
}
