import { GrammyError, HttpError } from "grammy";
import { ChatSendError } from "../../src/core/index.js";

/**
 * What a failed Bot API call means for whoever retries it (the notify worker, the reply
 * fallback): a 429 carries Telegram's `retry_after` as `retryAfterMs`; a refusal that the same
 * request will always get (chat gone, bot blocked or kicked, a request Telegram cannot read) is
 * `retryable: false`; 5xx and network failures stay retryable. grammY's errors never contain the
 * bot token (HttpError keeps it out of its message), so they are safe to log.
 */
export interface SendFailure {
  code: string;
  retryable: boolean;
  retryAfterMs?: number;
}

/** Chats the bot can no longer post into: retrying cannot help. */
const GONE =
  /chat not found|bot was blocked|bot was kicked|user is deactivated|not enough rights|have no rights|bot is not a member|group chat was (upgraded|deactivated)|CHAT_WRITE_FORBIDDEN/i;

export function classifySendError(error: unknown): SendFailure {
  if (error instanceof GrammyError) {
    const status = error.error_code;
    if (status === 429) {
      const seconds = error.parameters.retry_after ?? 1;
      return { code: "telegram_rate_limited", retryable: true, retryAfterMs: seconds * 1000 };
    }
    if (status >= 500) return { code: "telegram_unavailable", retryable: true };
    if (status === 403 || GONE.test(error.description))
      return { code: "telegram_chat_gone", retryable: false };
    return { code: "telegram_refused", retryable: false };
  }
  if (error instanceof HttpError) return { code: "telegram_network", retryable: true };
  return { code: "telegram_send_failed", retryable: true };
}

/**
 * The core's `ChatSendError` for a failed send. Only a GrammyError is kept as its cause: an
 * HttpError holds the fetch error, whose message has the request URL and with it the bot token.
 */
export function markSendError(error: unknown): ChatSendError {
  const failure = classifySendError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ChatSendError(message, { ...failure, ...(error instanceof GrammyError && { cause: error }) });
}

/** Telegram's answer to an edit that changes nothing: the message already shows the result. */
export const isNotModified = (error: unknown): boolean =>
  error instanceof GrammyError && /message is not modified/i.test(error.description);

/**
 * An error as a log field. grammY's HttpError keeps the underlying fetch error, whose message
 * contains the request URL and with it the bot token: log only our own fields.
 */
export function logSafe(error: unknown): Record<string, unknown> {
  if (error instanceof GrammyError) {
    return {
      name: error.name,
      method: error.method,
      error_code: error.error_code,
      description: error.description,
    };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(code !== undefined && { code }) };
  }
  return { message: String(error) };
}
