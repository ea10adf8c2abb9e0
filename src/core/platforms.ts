import { type Actor, atTop, type ConversationRef, type Platform } from "./invocation.js";
import type { PlatformFacts } from "./ports.js";
import { plain, type Span } from "./reply.js";

/** A mention in plain text, `@name`: where the platform has no mention of its own. */
export const atName = (who: string): Span => plain(who.startsWith("@") ? who : `@${who}`);

/**
 * The facts of a platform the wiring did not describe (a test's partial map): one flat
 * conversation without threads or a home screen, one post a second, messages of the smallest
 * size of the platforms we serve.
 */
const plainFacts = (platform: Platform): PlatformFacts => ({
  platform,
  commandPrefix: "/",
  mention: atName,
  limits: { maxChars: 3_900, blockChars: 3_900 },
  sendGapMs: () => 1_000,
  followUp: (conversation) => conversation,
  visibleAnswer: atTop,
});

/** The facts of `platform` as the wiring handed them in (`CoreDeps.platforms`, the notify worker's). */
export const platformFacts = (
  platforms: ReadonlyMap<Platform, PlatformFacts>,
  platform: Platform,
): PlatformFacts => platforms.get(platform) ?? plainFacts(platform);

/**
 * The user's home screen (Slack's App Home) as a conversation; on a platform without one, the
 * user's own chat with the bot.
 */
export function homeConversation(
  platforms: ReadonlyMap<Platform, PlatformFacts>,
  actor: Actor,
): ConversationRef {
  const home = platformFacts(platforms, actor.platform).home;
  return { platform: actor.platform, id: home ? home.conversationId(actor.userId) : actor.userId };
}
