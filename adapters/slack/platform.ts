import { atTop, type PlatformFacts } from "../../src/core/index.js";

const HOME_PREFIX = "home:";

/**
 * A user's App Home as a conversation, `home:<user id>`, the one place this id is made: buttons
 * shown there are bound to it, and a notice posted to it publishes the view again
 * (`slack-adapter.ts`, `homeUserOf`).
 */
export const homeConversationId = (userId: string): string => `${HOME_PREFIX}${userId}`;

/** The user whose App Home `conversationId` is; undefined for any other conversation. */
export const homeUserOf = (conversationId: string): string | undefined =>
  conversationId.startsWith(HOME_PREFIX) ? conversationId.slice(HOME_PREFIX.length) : undefined;

/**
 * Slack as the core and the notify worker see it (`PlatformFacts`).
 * - Size: a message holds ~40 000 characters and 50 blocks, a section 3000 characters. A digest
 *   keeps 30 000 of text in sections of at most 2 400 (room for escaping); greedy packing fills
 *   each at least half, so it needs at most 2 × 29 200 / 2 400 + 1 = 26 blocks, plus five.
 * - Pace: ~1 message a second per channel, its threads included.
 * - Threads: an outcome's follow-ups go in its message's thread (`thread_ts`); a message inside a
 *   thread keeps that thread, since Slack threads do not nest. An answer the whole channel must
 *   see is posted at the top: a thread reply is hidden from it.
 * - Home: each user's App Home (`home:<user id>`).
 */
export const SLACK_PLATFORM: PlatformFacts = {
  platform: "slack",
  commandPrefix: "/",
  mention: (who) => ({ text: `@${who}`, mention: who }),
  limits: { maxChars: 30_000, blockChars: 2_400 },
  sendGapMs: () => 1_000,
  followUp: (conversation, messageId) => ({ ...conversation, threadId: conversation.threadId ?? messageId }),
  visibleAnswer: atTop,
  home: { conversationId: homeConversationId, userOf: homeUserOf },
};
