/**
 * The Telegram adapter over real parts, driven over HTTP as Telegram drives it:
 *
 * - the fake Bot API (`test/fakes/telegram-api.ts`) as grammY's `apiRoot`;
 * - the bot kit (`test/support/bot-kit.ts`): the sandbox service on a free port with short
 *   durations, the real service client, the real core, store (memory, or the one given) and job
 *   system (in-process queue, delays scaled by `timeScale`) with the notify worker delivering
 *   through the adapter under test;
 * - the bot's HTTP server with the adapter's `POST /telegram/webhook` route.
 *
 * Updates are POSTed with the secret header; the test reads what the fake Bot API recorded and
 * what the sandbox was asked.
 */
import { afterEach } from "vitest";
import {
  createTelegramAdapter,
  type TelegramAdapter,
  type TelegramRetry,
} from "../../../adapters/telegram/index.js";
import type { Core } from "../../../src/core/core.js";
import type { CoreDeps } from "../../../src/core/deps.js";
import type { createMemoryLogger } from "../../../src/core/logger.js";
import { createHttpServer } from "../../../src/http/server.js";
import type { Sandbox } from "../../../src/sandbox/server.js";
import type { Store } from "../../../src/store/store.js";
import { createFakeTelegramApi, type FakeMessage, type FakeTelegramApi } from "../../fakes/telegram-api.js";
import { type ChatKitOptions, startChatKit } from "../../support/bot-kit.js";
import {
  buttonData,
  callbackUpdate,
  GROUP_CHAT,
  messageUpdate,
  OPERATOR,
  PRIVATE_CHAT,
  type TelegramUser,
} from "./updates.js";

export {
  buttonData,
  callbackUpdate,
  GROUP_CHAT,
  messageUpdate,
  OPERATOR,
  PRIVATE_CHAT,
  replyUpdate,
  STRANGER_CHAT,
  VIEWER,
} from "./updates.js";
export type { TelegramUser };

export const SECRET = "hook-secret_0123456789";

export interface TelegramHarnessOptions extends ChatKitOptions {
  allowedChats?: number[];
  /** Another instance's fake Bot API (two bots, one Telegram). */
  fake?: FakeTelegramApi;
  /** null: long polling (no webhook route). */
  webhookSecret?: string | null;
  retry?: Partial<TelegramRetry>;
  answerWithinMs?: number;
  /** How long the fake holds a long poll that finds no update (default 1 s). */
  pollTimeoutSeconds?: number;
  /** OPS_OPERATORS (default: the OPERATOR user). */
  operators?: string[];
}

export interface TelegramHarness {
  fake: FakeTelegramApi;
  sandbox: Sandbox;
  store: Store;
  core: Core;
  deps: CoreDeps;
  adapter: TelegramAdapter;
  logger: ReturnType<typeof createMemoryLogger>;
  /** `http://127.0.0.1:<port>` of the bot's HTTP server. */
  url: string;
  /** POSTs an update to /telegram/webhook with the secret header (`null`: none). */
  postUpdate(update: Record<string, unknown>, secret?: string | null): Promise<Response>;
  /** A text message from `from` in `chat`, as Telegram would POST it. */
  say(text: string, options?: { chat?: number; from?: TelegramUser; updateId?: number }): Promise<Response>;
  /** A click on the button labelled `label` of `message`. */
  click(message: FakeMessage, label: string | RegExp, from?: TelegramUser): Promise<Response>;
  /**
   * Waits until no update is being handled, no notification is queued and no tracked job is due
   * (a tracked job delayed further, such as a delivery watch, is left to run later).
   */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const open: TelegramHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

export async function startTelegramHarness(options: TelegramHarnessOptions = {}): Promise<TelegramHarness> {
  const fake = options.fake ?? (await createFakeTelegramApi());
  const kit = await startChatKit(options, {
    hostCallbackToken: "telegram-test-callback-token",
    admins: [],
    operators: options.operators ?? [`telegram:${OPERATOR.id}`],
  });
  const { deps, core, store, logger } = kit;
  const secret = options.webhookSecret === undefined ? SECRET : (options.webhookSecret ?? undefined);
  const adapter = createTelegramAdapter({
    config: {
      botToken: fake.token,
      apiRoot: fake.url,
      ...(secret !== undefined && { webhookSecret: secret }),
      allowedChats: options.allowedChats ?? [PRIVATE_CHAT, GROUP_CHAT],
    },
    publicUrl: "https://opsbot.test",
    core,
    store,
    logger,
    notifier: deps.notifier,
    ...(options.retry && { retry: options.retry }),
    ...(options.answerWithinMs !== undefined && { answerWithinMs: options.answerWithinMs }),
    pollTimeoutSeconds: options.pollTimeoutSeconds ?? 1,
  });
  await kit.startWorkers(new Map([["telegram", adapter]]));
  const http = createHttpServer({ routes: adapter.route ? [adapter.route] : [] });
  const port = await http.listen(0, "127.0.0.1");
  await adapter.start();
  const url = `http://127.0.0.1:${port}`;

  const postUpdate = (update: Record<string, unknown>, given: string | null = SECRET) =>
    fetch(`${url}/telegram/webhook`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(given !== null && { "x-telegram-bot-api-secret-token": given }),
      },
      body: JSON.stringify(update),
    });

  const settle = (timeoutMs?: number) => kit.settle(timeoutMs, { idle: (ms) => adapter.idle(ms) });

  let closed = false;
  const harness: TelegramHarness = {
    fake,
    sandbox: kit.sandbox,
    store,
    core,
    deps,
    adapter,
    logger,
    url,
    postUpdate,
    say: (text, o = {}) =>
      postUpdate(messageUpdate(text, o.chat ?? PRIVATE_CHAT, o.from ?? OPERATOR, o.updateId)),
    click: (message, label, from = OPERATOR) =>
      postUpdate(callbackUpdate(message, buttonData(message, label), from)),
    settle,
    async close() {
      if (closed) return;
      closed = true;
      await adapter.close();
      await http.close();
      await kit.close();
      if (!options.fake) await fake.close();
    },
  };
  open.push(harness);
  return harness;
}
