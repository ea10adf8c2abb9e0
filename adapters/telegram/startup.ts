import type { Bot } from "grammy";
import type { CommandDefinition, Logger } from "../../src/core/index.js";
import { publishedCommands } from "./bot/commands.js";
import { logSafe } from "./errors.js";
import { TELEGRAM_WEBHOOK_PATH } from "./webhook.js";

/** The updates the bot handles; Telegram sends no other kind. */
const ALLOWED_UPDATES = ["message", "callback_query"] as const;
const POLL_TIMEOUT_SECONDS = 30;

export interface StartOptions {
  commands: readonly CommandDefinition[];
  logger: Logger;
  /** Set: webhook mode. Unset: long polling. */
  webhookSecret?: string;
  publicUrl?: string;
  pollTimeoutSeconds?: number;
  signal: AbortSignal;
}

/**
 * getMe (the bot learns its username, for `/cmd@bot` in groups), setMyCommands from the core's
 * registry, then setWebhook with PUBLIC_URL and the secret, or long polling. Resolves when the
 * bot receives updates; returns the polling loop, if any, for `stop` to wait on (wrapped: a
 * promise returned from an async function would be awaited, and the loop only ends at stop).
 */
export async function startBot(bot: Bot, options: StartOptions): Promise<{ polling?: Promise<void> }> {
  // grammY types the signal with its polyfill; a native one works the same.
  await bot.init(options.signal as Parameters<typeof bot.init>[0]);
  await publishCommands(bot, options);
  if (options.webhookSecret === undefined) return startPolling(bot, options);
  if (options.publicUrl === undefined) {
    options.logger.info({}, "telegram: webhook mode without PUBLIC_URL; register the webhook yourself");
    return {};
  }
  await bot.api.setWebhook(`${options.publicUrl}${TELEGRAM_WEBHOOK_PATH}`, {
    secret_token: options.webhookSecret,
    allowed_updates: ALLOWED_UPDATES,
  });
  return {};
}

async function publishCommands(bot: Bot, options: StartOptions): Promise<void> {
  try {
    await bot.api.setMyCommands(publishedCommands(options.commands));
  } catch (error) {
    // The commands still work when typed; only the menu is missing.
    options.logger.warn(
      { err: logSafe(error) },
      "telegram: setMyCommands failed; the command menu is not updated",
    );
  }
}

/** `bot.start` resolves only when polling stops: wait for its `onStart` instead. */
async function startPolling(bot: Bot, options: StartOptions): Promise<{ polling: Promise<void> }> {
  let loop: Promise<void> | undefined;
  await new Promise<void>((resolve, reject) => {
    loop = bot
      .start({
        allowed_updates: ALLOWED_UPDATES,
        timeout: options.pollTimeoutSeconds ?? POLL_TIMEOUT_SECONDS,
        onStart: () => resolve(),
      })
      .catch((error: unknown) => {
        options.logger.error(
          { err: logSafe(error) },
          "telegram: long polling stopped; check TELEGRAM_BOT_TOKEN",
        );
        reject(error);
      });
  });
  return { polling: loop ?? Promise.resolve() };
}
