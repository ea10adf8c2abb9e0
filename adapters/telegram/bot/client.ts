import { autoRetry } from "@grammyjs/auto-retry";
import { Bot } from "grammy";
import type { TelegramConfig } from "../../../src/config/load-config.js";

export interface TelegramRetry {
  /**
   * How often one API call is retried after a 429 before the error reaches the caller. The
   * notify queue retries on its own schedule, so a stuck chat never holds a worker for long.
   */
  maxRetryAttempts: number;
  /** A `retry_after` above this is not waited for in-process: the error carries it to the queue. */
  maxDelaySeconds: number;
}

const TELEGRAM_RETRY: TelegramRetry = { maxRetryAttempts: 3, maxDelaySeconds: 10 };
/** One Bot API call may take this long (grammY's default is 500 s); above the long-poll wait. */
const REQUEST_TIMEOUT_SECONDS = 60;

/**
 * The grammY bot with Telegram's limits honoured: `TELEGRAM_API_ROOT` as `client.apiRoot`, a
 * bounded request timeout, and auto-retry for 429 within bounds. 5xx and network failures are
 * rethrown, because auto-retry would retry those without bound; the callers (the notify queue,
 * the reply redelivery) own that retry and its backoff.
 */
export function createBot(config: TelegramConfig, retry: Partial<TelegramRetry> = {}): Bot {
  const bot = new Bot(config.botToken, {
    client: { timeoutSeconds: REQUEST_TIMEOUT_SECONDS, ...(config.apiRoot && { apiRoot: config.apiRoot }) },
  });
  bot.api.config.use(
    autoRetry({ ...TELEGRAM_RETRY, ...retry, rethrowInternalServerErrors: true, rethrowHttpErrors: true }),
  );
  return bot;
}
