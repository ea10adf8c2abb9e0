import { atName, atTop, type ConversationRef, type PlatformFacts } from "../../src/core/index.js";

/**
 * Telegram as the core and the notify worker see it (`PlatformFacts`).
 * - Size: a message holds 4096 characters of HTML; a digest keeps 3 900.
 * - Pace: ~1 message a second per chat, 20 a minute per group (a group's id is negative).
 * - Threads: an outcome's follow-ups are replies to its message (a forum topic is kept); an
 *   answer the whole chat must see replies to the message it answers, which links them.
 * - No home screen.
 */
export const TELEGRAM_PLATFORM: PlatformFacts = {
  platform: "telegram",
  commandPrefix: "/",
  mention: atName,
  limits: { maxChars: 3_900, blockChars: 3_900 },
  sendGapMs: (conversation) => (conversation.id.startsWith("-") ? 3_000 : 1_000),
  followUp: (conversation, messageId) => ({ ...conversation, replyTo: messageId }),
  visibleAnswer: (conversation, messageId): ConversationRef => ({
    ...atTop(conversation),
    ...(messageId !== undefined && { replyTo: messageId }),
  }),
};
