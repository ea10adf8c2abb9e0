import { atTop, type ConversationRef, type PlatformFacts } from "../../src/core/index.js";

/** A channel's conversation (`19:…@thread.tacv2`) has threads; a personal or group chat has none. */
const hasThreads = (conversation: ConversationRef): boolean =>
  /^19:.*@thread\.(tacv2|skype)$/.test(conversation.id);

/**
 * Microsoft Teams as the core and the notify worker see it (`PlatformFacts`).
 * - A command is a message to the bot (no slash); a mention is an Entra object id (`<at>` entity).
 * - Size: a message holds about 28 KB; a digest keeps 20 000 characters in text blocks of 2 000.
 * - Pace: about one message a second per conversation (the connector's own limit is a little more).
 * - Threads: in a channel, an outcome's follow-ups go in its message's thread (`;messageid=`); an
 *   answer the whole channel must see is a new post. Chats are flat.
 */
export const TEAMS_PLATFORM: PlatformFacts = {
  platform: "teams",
  commandPrefix: "",
  mention: (who) => ({ text: `@${who}`, mention: who }),
  limits: { maxChars: 20_000, blockChars: 2_000 },
  sendGapMs: () => 1_000,
  followUp: (conversation, messageId) =>
    hasThreads(conversation)
      ? { ...conversation, threadId: conversation.threadId ?? messageId }
      : conversation,
  visibleAnswer: atTop,
};
