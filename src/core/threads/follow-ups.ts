import type { ConversationRef, Invocation } from "../invocation.js";

/**
 * Where the follow-ups of a button's outcome belong (delivery, activation, Host Mode cycles,
 * report files): under the message that carried the button, which the core replaces with the
 * confirmed outcome; for a command that places an order itself (a statement), under the message
 * the command was typed in. A busy channel then shows one message per order, its story in the thread.
 *
 * Slack: that message's thread (`thread_ts`); a click inside a thread keeps that thread, since
 * Slack threads do not nest. Telegram: a reply to that message (forum topics are kept). The
 * console has one flat conversation. Without a message id, the conversation itself.
 */
export function followUpConversation(invocation: Invocation): ConversationRef {
  const { conversation } = invocation;
  const { messageId } = invocation;
  if (messageId === undefined || messageId === "") return conversation;
  switch (conversation.platform) {
    case "slack":
      return { ...conversation, threadId: conversation.threadId ?? messageId };
    case "telegram":
      return { ...conversation, replyTo: messageId };
    case "console":
      return conversation;
  }
}
