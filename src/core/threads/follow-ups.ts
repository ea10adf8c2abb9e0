import type { CoreDeps } from "../deps.js";
import type { ConversationRef, Invocation } from "../invocation.js";
import { platformFacts } from "../platforms.js";

/**
 * Where the follow-ups of a button's outcome belong (delivery, activation, Host Mode cycles,
 * report files): under the message that carried the button, which the core replaces with the
 * confirmed outcome; for a command that places an order itself (a statement), under the message
 * the command was typed in. A busy channel then shows one message per order, its story under it.
 * How "under" reads is the platform's (`PlatformFacts.followUp`: a Slack thread, a Telegram
 * reply); without a message id, the conversation itself.
 */
export function followUpConversation(
  deps: Pick<CoreDeps, "platforms">,
  invocation: Invocation,
): ConversationRef {
  const { conversation, messageId } = invocation;
  if (messageId === undefined || messageId === "") return conversation;
  return platformFacts(deps.platforms, conversation.platform).followUp(conversation, messageId);
}
