import type { ConversationRef } from "../../src/core/index.js";

/**
 * A link to a message of a supergroup or channel (its chat id without the `-100`), which opens for
 * its members; a private chat's or a basic group's message has none.
 */
export function telegramMessageLink(conversation: ConversationRef, messageId: string): string | undefined {
  return conversation.id.startsWith("-100")
    ? `https://t.me/c/${conversation.id.slice(4)}/${messageId}`
    : undefined;
}
