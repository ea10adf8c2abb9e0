import type { Bot } from "grammy";
import type { Update } from "grammy/types";
import type { TelegramConfig } from "../../src/config/load-config.js";
import type { ChatAdapter, ChatAdapterLifecycle, Logger, Notifier } from "../../src/core/index.js";
import { errorReply, STORE_UNAVAILABLE_LINE } from "../../src/core/index.js";
import type { HttpRoute } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";
import { createBot, type TelegramRetry } from "./bot/client.js";
import { type ChatCore, createHandlers } from "./bot/handlers.js";
import { createPrompts } from "./bot/prompts.js";
import { createFileReader } from "./bot/shared-file.js";
import { logSafe, markSendError } from "./errors.js";
import { telegramMessageLink } from "./message-link.js";
import { createRedeliver } from "./redeliver.js";
import { renderReply } from "./render/html.js";
import { createTelegramSender, type TelegramSender } from "./send.js";
import { startBot } from "./startup.js";
import { createBackgroundTasks, createUpdateClaims } from "./updates.js";
import { createWebhookRoute } from "./webhook.js";

/*
 * The Telegram adapter: Telegram updates → Invocations for the core, Replies → Telegram HTML with
 * inline keyboards. Webhook mode (TELEGRAM_WEBHOOK_SECRET) serves `POST /telegram/webhook` on the
 * bot's one HTTP server; otherwise it long-polls. Either way an update is claimed once in the
 * shared store and handled in the background, so Telegram gets its answer at once.
 */

/** CONTRACT.md: on SIGTERM, work in flight is finished within ~10 s. */
const STOP_TIMEOUT_MS = 10_000;
const ANSWER_WITHIN_MS = 2_500;
/** A chat that is not served is told so at most once in this window. */
const REFUSAL_WINDOW_MS = 3_600_000;

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

export interface TelegramAdapter extends ChatAdapter, ChatAdapterLifecycle {
  readonly platform: "telegram";
  /** A picture as a photo (sendPhoto), its summary as the caption, in the conversation's topic. */
  /** `POST /telegram/webhook` in webhook mode (TELEGRAM_WEBHOOK_SECRET set), else undefined. */
  readonly route?: HttpRoute;
  /** getMe, setMyCommands, then setWebhook (webhook mode with PUBLIC_URL) or long polling. */
  start(): Promise<void>;
  ready(): boolean;
  /** Stops taking updates and finishes the ones in flight (default bound: 10 s). */
  close(timeoutMs?: number): Promise<void>;
  /** Waits until no update is being handled (tests, drain). */
  idle(timeoutMs?: number): Promise<void>;
}

export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { config, logger } = options;
  const bot = createBot(config, options.retry);
  const sender = createTelegramSender(bot.api);
  const background = createBackgroundTasks(logger);
  const claim = createUpdateClaims(options.store, () => bot.botInfo.id);
  const abort = new AbortController();
  let state: "created" | "running" | "stopping" = "created";
  let polling: Promise<void> | undefined;

  // Updates the store could not claim: answered "storage is unavailable" instead of run.
  const unclaimed = new WeakSet<Update>();
  const handle = wireBot(bot, options, { claim, background, sender, unclaimed });

  return {
    platform: "telegram",
    route:
      config.webhookSecret === undefined
        ? undefined
        : createWebhookRoute({
            secret: config.webhookSecret,
            logger,
            accepting: () => state === "running",
            claim,
            later: (work) => background.run(work),
            accept: (update) => background.run(() => handle(update)),
            storeDown: (update) => {
              unclaimed.add(update);
              background.run(() => handle(update));
            },
          }),
    async start() {
      ({ polling } = await startBot(bot, {
        commands: options.core.commands,
        logger,
        webhookSecret: config.webhookSecret,
        publicUrl: options.publicUrl,
        pollTimeoutSeconds: options.pollTimeoutSeconds,
        signal: abort.signal,
      }));
      state = "running";
      const mode = config.webhookSecret === undefined ? "polling" : "webhook";
      logger.info({ bot: bot.botInfo.username, mode }, "telegram: ready");
    },
    ready: () => state === "running",
    async send(conversation, reply) {
      const rendered = renderReply(reply);
      // A person's answer that was queued still quotes the command it answers.
      const replyTo = Number(reply.answers?.messageId);
      const options = Number.isSafeInteger(replyTo) && replyTo > 0 ? { replyTo } : {};
      try {
        return { messageId: String(await sender.post(conversation, rendered, options)) };
      } catch (error) {
        throw markSendError(error);
      }
    },
    async replace(conversation, messageId, reply) {
      const id = Number(messageId);
      if (!Number.isSafeInteger(id) || id <= 0) return this.send(conversation, reply);
      try {
        // An edit Telegram refuses (deleted, too old) is posted anew; "not modified" is the same message.
        await sender.replace(conversation, id, renderReply(reply));
        return { messageId };
      } catch (error) {
        throw markSendError(error);
      }
    },
    messageLink: telegramMessageLink,
    async close(timeoutMs = STOP_TIMEOUT_MS) {
      state = "stopping";
      abort.abort();
      if (polling !== undefined && bot.isRunning()) await bot.stop().catch(() => {});
      await polling;
      await background.idle(timeoutMs);
    },
    idle: (timeoutMs = STOP_TIMEOUT_MS) => background.idle(timeoutMs),
  };
}

/** The middleware: claims (long polling), the handlers, and error logging. Returns the webhook's entry. */
function wireBot(
  bot: Bot,
  options: TelegramAdapterOptions,
  parts: {
    claim: (updateId: number) => Promise<boolean>;
    background: ReturnType<typeof createBackgroundTasks>;
    sender: TelegramSender;
    unclaimed: WeakSet<Update>;
  },
): (update: Update) => Promise<void> {
  const { config, logger } = options;
  if (config.webhookSecret === undefined) {
    // Long polling runs updates one after another: hand each to the background, so one slow
    // command never holds the others, and claim it like a webhook update.
    bot.use(async (ctx, next) => {
      const first = await parts.claim(ctx.update.update_id).catch((error: unknown) => {
        logger.error(
          { err: logSafe(error), updateId: ctx.update.update_id },
          "telegram: could not claim an update",
        );
        parts.unclaimed.add(ctx.update);
        return true;
      });
      if (first) parts.background.run(() => next());
    });
  }
  useHandlers(bot, options, parts);
  bot.catch((error) => logUpdateFailure(logger, error.ctx.update.update_id, error.error));
  return (update) =>
    bot.handleUpdate(update).catch((error: unknown) => {
      // handleUpdate wraps what the middleware threw in a BotError: log the cause.
      const cause = error instanceof Error && "error" in error ? (error as { error: unknown }).error : error;
      logUpdateFailure(logger, update.update_id, cause);
    });
}

/**
 * The handlers, twice: with the core, and with a core that runs nothing for the updates the store
 * could not claim, so every command and click among them gets the one "storage is unavailable" line.
 */
function useHandlers(
  bot: Bot,
  options: TelegramAdapterOptions,
  parts: { sender: TelegramSender; unclaimed: WeakSet<Update> },
): void {
  const deps = {
    core: options.core,
    sender: parts.sender,
    allowedChats: new Set(options.config.allowedChats.map(String)),
    logger: options.logger,
    redeliver: createRedeliver(options.logger, options.notifier),
    answerWithinMs: options.answerWithinMs ?? ANSWER_WITHIN_MS,
    prompts: createPrompts(options.store),
    mayRefuse: (chatId: number) =>
      options.store.setIfNotExists(`telegram:refused:${chatId}`, "1", REFUSAL_WINDOW_MS),
    readDocument: createFileReader(bot.api, options.config.botToken, options.config.apiRoot),
  };
  const storeDown: ChatCore = {
    commands: options.core.commands,
    handle: async () => errorReply(STORE_UNAVAILABLE_LINE),
  };
  bot.branch(
    (ctx) => parts.unclaimed.has(ctx.update),
    createHandlers({ ...deps, core: storeDown }),
    createHandlers(deps),
  );
}

function logUpdateFailure(logger: Logger, updateId: number, error: unknown): void {
  logger.error({ updateId, err: logSafe(error) }, "telegram: handling an update failed");
}
