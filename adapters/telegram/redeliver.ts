import type { ConversationRef, Logger, Notifier, Reply } from "../../src/core/index.js";
import { classifySendError, logSafe } from "./errors.js";

/**
 * A reply (a command's answer, a click's result) that Telegram did not take right away goes to
 * the durable notification queue, which retries it with backoff and honours `retry_after`: an
 * outage delays an answer, it does not lose it. A refusal that retrying cannot change (the bot
 * was removed from the chat) is logged with what to check instead.
 */
export function createRedeliver(logger: Logger, notifier: Notifier | undefined) {
  return async (conversation: ConversationRef, reply: Reply, error: unknown): Promise<void> => {
    const failure = classifySendError(error);
    const fields = { chatId: conversation.id, code: failure.code, err: logSafe(error) };
    if (!failure.retryable || notifier === undefined) {
      logger.warn(
        fields,
        "telegram: could not post a reply; check that the bot is still a member of this chat",
      );
      return;
    }
    logger.warn(fields, "telegram: reply not sent now; queued for retry");
    await notifier.post(conversation, reply).catch((queueError: unknown) => {
      logger.error(
        { ...fields, queueError: logSafe(queueError) },
        "telegram: a reply was lost (queue failed)",
      );
    });
  };
}
