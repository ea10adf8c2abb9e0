import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Answer, bad, createMethods, type FakeMessage, type FakeState } from "./telegram-methods.js";
import { parseBotApiBody, type UploadedFile } from "./telegram-multipart.js";
import { createUpdateQueue } from "./telegram-updates.js";

export type { FakeMessage } from "./telegram-methods.js";

/**
 * A fake Telegram Bot API over real HTTP (grammY's `client.apiRoot`, TELEGRAM_API_ROOT):
 * `/bot<token>/<method>` for getMe, setWebhook, deleteWebhook, setMyCommands, sendMessage,
 * editMessageText, editMessageReplyMarkup, answerCallbackQuery, sendDocument (multipart) and
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
    const failure = method === "getUpdates" ? undefined : failures.take(method);
    const handler = methods[method];
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
    /** Queues an update for long polling (`getUpdates`); returns its update_id. */
    pushUpdate: (update: Record<string, unknown>): number => state.updates.push(update),
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
