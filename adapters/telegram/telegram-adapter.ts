import { autoRetry } from "@grammyjs/auto-retry";
import { Bot } from "grammy";
import type { Update } from "grammy/types";
import type { TelegramConfig } from "../../src/config.js";
import type { ConversationRef } from "../../src/core/invocation.js";
import type { Logger } from "../../src/core/logger.js";
import type { ChatAdapter, Notifier } from "../../src/core/ports.js";
import type { Reply } from "../../src/core/reply.js";
import type { HttpRoute } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";
import { publishedCommands } from "./bot/commands.js";
import { type ChatCore, createHandlers } from "./bot/handlers.js";
import { classifySendError, logSafe, markSendError } from "./errors.js";
import { renderReply } from "./render/html.js";
import { createTelegramSender } from "./send.js";
import { createBackgroundTasks, createUpdateClaims } from "./updates.js";
import { createWebhookRoute, TELEGRAM_WEBHOOK_PATH } from "./webhook.js";

export interface TelegramRetry {
  /**
   * How often one API call is retried after a 429 before the error reaches the caller. The
   * notify queue retries on its own schedule, so a stuck chat never holds a worker for long.
   */
  maxRetryAttempts: number;
  /** A `retry_after` above this is not waited for in-process: the error carries it to the queue. */
  maxDelaySeconds: number;
}

export const TELEGRAM_RETRY: TelegramRetry = { maxRetryAttempts: 3, maxDelaySeconds: 10 };
/** One Bot API call may take this long (grammY's default is 500 s); above the long-poll wait. */
const REQUEST_TIMEOUT_SECONDS = 60;
const POLL_TIMEOUT_SECONDS = 30;
/** CONTRACT.md: on SIGTERM, work in flight is finished within ~10 s. */
const STOP_TIMEOUT_MS = 10_000;
const ANSWER_WITHIN_MS = 2_500;
const ALLOWED_UPDATES = ["message", "callback_query"] as const;

export interface TelegramAdapterOptions {
  config: TelegramConfig;
  /** PUBLIC_URL: in webhook mode, setWebhook is called with `<publicUrl>/telegram/webhook`. */
  publicUrl?: string;
  core: ChatCore;
  store: Store;
  logger: Logger;
  /** The durable queue: a reply that could not be sent right away is posted through it. */
  notifier?: Notifier;
  retry?: Partial<TelegramRetry>;
  answerWithinMs?: number;
  pollTimeoutSeconds?: number;
}

export interface TelegramAdapter extends ChatAdapter {
  readonly platform: "telegram";
  /** `POST /telegram/webhook` in webhook mode (TELEGRAM_WEBHOOK_SECRET set), else undefined. */
  readonly route?: HttpRoute;
  /** getMe, setMyCommands, then setWebhook (webhook mode with PUBLIC_URL) or long polling. */
  start(): Promise<void>;
  ready(): boolean;
  /** Stops taking updates and finishes the ones in flight (bounded). */
  stop(): Promise<void>;
  /** Waits until no update is being handled (tests, drain). */
  idle(timeoutMs?: number): Promise<void>;
}

export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { config, logger } = options;
  const bot = new Bot(config.botToken, {
    client: { timeoutSeconds: REQUEST_TIMEOUT_SECONDS, ...(config.apiRoot && { apiRoot: config.apiRoot }) },
  });
  // 5xx and network failures are rethrown: auto-retry would retry those without bound; the
  // callers (notify queue, redelivery) own that retry.
  bot.api.config.use(
    autoRetry({
      ...TELEGRAM_RETRY,
      ...options.retry,
      rethrowInternalServerErrors: true,
      rethrowHttpErrors: true,
    }),
  );
  const sender = createTelegramSender(bot.api);
  const background = createBackgroundTasks(logger);
  const claim = createUpdateClaims(options.store, () => bot.botInfo.id);
  const webhookSecret = config.webhookSecret;
  const abort = new AbortController();
  let state: "created" | "running" | "stopping" = "created";
  let polling: Promise<void> | undefined;

  async function redeliver(conversation: ConversationRef, reply: Reply, error: unknown): Promise<void> {
    const failure = classifySendError(error);
    const fields = { chatId: conversation.id, code: failure.code, err: logSafe(error) };
    if (!failure.retryable || options.notifier === undefined) {
      logger.warn(
        fields,
        "telegram: could not post a reply; check that the bot is still a member of this chat",
      );
      return;
    }
    logger.warn(fields, "telegram: reply not sent now; queued for retry");
    await options.notifier.post(conversation, reply).catch((queueError: unknown) => {
      logger.error(
        { ...fields, queueError: logSafe(queueError) },
        "telegram: a reply was lost (queue failed)",
      );
    });
  }

  if (webhookSecret === undefined) {
    // Long polling runs updates one after another: hand each to the background, so one slow
    // command never holds the others, and claim it like a webhook update.
    bot.use(async (ctx, next) => {
      if (await claim(ctx.update.update_id)) background.run(() => next());
    });
  }
  bot.use(
    createHandlers({
      core: options.core,
      sender,
      allowedChats: new Set(config.allowedChats.map(String)),
      logger,
      redeliver,
      answerWithinMs: options.answerWithinMs ?? ANSWER_WITHIN_MS,
    }),
  );
  bot.catch((error) => {
    logger.error(
      { updateId: error.ctx.update.update_id, err: logSafe(error.error) },
      "telegram: update failed",
    );
  });

  const handle = async (update: Update) => {
    await bot.handleUpdate(update).catch((error: unknown) => {
      const inner = error instanceof Error && "error" in error ? (error as { error: unknown }).error : error;
      logger.error({ updateId: update.update_id, err: logSafe(inner) }, "telegram: update failed");
    });
  };
  const route =
    webhookSecret === undefined
      ? undefined
      : createWebhookRoute({
          secret: webhookSecret,
          logger,
          accepting: () => state === "running",
          claim,
          accept: (update) => background.run(() => handle(update)),
        });

  async function publishCommands(): Promise<void> {
    try {
      await bot.api.setMyCommands(publishedCommands(options.core.commands));
    } catch (error) {
      // The commands still work when typed; only the menu is missing.
      logger.warn({ err: logSafe(error) }, "telegram: setMyCommands failed; the command menu is not updated");
    }
  }

  async function startPolling(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      polling = bot
        .start({
          allowed_updates: ALLOWED_UPDATES,
          timeout: options.pollTimeoutSeconds ?? POLL_TIMEOUT_SECONDS,
          onStart: () => resolve(),
        })
        .catch((error: unknown) => {
          logger.error({ err: logSafe(error) }, "telegram: long polling stopped; check TELEGRAM_BOT_TOKEN");
          reject(error);
        });
    });
  }

  return {
    platform: "telegram",
    route,
    async start() {
      // grammY types the signal with its polyfill; a native one works the same.
      await bot.init(abort.signal as Parameters<typeof bot.init>[0]);
      await publishCommands();
      if (webhookSecret === undefined) {
        await startPolling();
      } else if (options.publicUrl !== undefined) {
        await bot.api.setWebhook(`${options.publicUrl}${TELEGRAM_WEBHOOK_PATH}`, {
          secret_token: webhookSecret,
          allowed_updates: ALLOWED_UPDATES,
        });
      } else {
        logger.info({}, "telegram: webhook mode without PUBLIC_URL; register the webhook yourself");
      }
      state = "running";
      logger.info(
        { bot: bot.botInfo.username, mode: webhookSecret ? "webhook" : "polling" },
        "telegram: ready",
      );
    },
    ready: () => state === "running",
    async send(conversation, reply) {
      const rendered = renderReply(reply);
      try {
        return { messageId: String(await sender.post(conversation, rendered)) };
      } catch (error) {
        throw markSendError(error);
      }
    },
    async stop() {
      state = "stopping";
      abort.abort();
      if (polling !== undefined && bot.isRunning()) await bot.stop().catch(() => {});
      await polling;
      await background.idle(STOP_TIMEOUT_MS);
    },
    idle: (timeoutMs = STOP_TIMEOUT_MS) => background.idle(timeoutMs),
  };
}
