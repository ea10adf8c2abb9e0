import type { Logger, Notifier, Reply } from "../../src/core/index.js";
import { type ConversationRef, conversationKey } from "../../src/core/index.js";
import { classifySendError, logSafe } from "./errors.js";

/**
 * A reply (a command's answer, a click's result) that Telegram did not take right away goes to
 * the durable notification queue, which retries it with backoff and honours `retry_after`: an
 * outage delays an answer, it does not lose it. It is marked as a person's answer, so the queue
 * sends it whole (never in a digest of notices) and as a reply to its command. A refusal that
 * retrying cannot change (the bot was removed from the chat) is logged with what to check instead.
 *
 * While this instance has answers of a chat waiting in the queue, a new answer of that chat goes
 * behind them (`behind`, `queue`), so answers reach the chat in the order they were asked.
 */
export interface Redeliver {
  (conversation: ConversationRef, reply: Reply, error: unknown): Promise<void>;
  /** True when answers of this chat wait in the queue: a new one must not overtake them. */
  behind(conversation: ConversationRef): Promise<boolean>;
  /** Queues an answer behind those waiting, without trying Telegram first. */
  queue(conversation: ConversationRef, reply: Reply): Promise<void>;
}

export function createRedeliver(logger: Logger, notifier: Notifier | undefined): Redeliver {
  /** Chats this instance queued answers for; cleared once their mailbox is empty. */
  const waiting = new Set<string>();

  async function enqueue(conversation: ConversationRef, reply: Reply, fields: Record<string, unknown>) {
    if (notifier === undefined) return;
    const answer: Reply = { ...reply, answers: reply.answers ?? {} };
    try {
      await notifier.post(conversation, answer);
      waiting.add(conversationKey(conversation));
    } catch (queueError) {
      logger.error(
        { ...fields, queueError: logSafe(queueError) },
        "telegram: a reply was lost (queue failed)",
      );
    }
  }

  const redeliver = async (conversation: ConversationRef, reply: Reply, error: unknown): Promise<void> => {
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
    await enqueue(conversation, reply, fields);
  };

  return Object.assign(redeliver, {
    async behind(conversation: ConversationRef): Promise<boolean> {
      const key = conversationKey(conversation);
      if (!waiting.has(key) || notifier?.pending === undefined) return false;
      const pending = await notifier.pending(conversation).catch(() => false);
      if (!pending) waiting.delete(key);
      return pending;
    },
    async queue(conversation: ConversationRef, reply: Reply): Promise<void> {
      logger.info({ chatId: conversation.id }, "telegram: answer queued behind earlier answers of this chat");
      await enqueue(conversation, reply, { chatId: conversation.id });
    },
  });
}
