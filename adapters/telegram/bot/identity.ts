import type { Chat, User } from "grammy/types";
import type { Actor, ConversationRef } from "../../../src/core/index.js";

/** A Telegram user as the core knows them: roles are looked up as `telegram:<id>`. */
export function actorOf(user: User): Actor {
  const name = user.username
    ? `@${user.username}`
    : [user.first_name, user.last_name].filter(Boolean).join(" ");
  return { platform: "telegram", userId: String(user.id), ...(name && { displayName: name }) };
}

/** A chat (and its forum topic, when the message was in one) as a place to answer and notify. */
export function conversationOf(chat: Pick<Chat, "id">, topicId?: number): ConversationRef {
  return {
    platform: "telegram",
    id: String(chat.id),
    ...(topicId !== undefined && { threadId: String(topicId) }),
  };
}

/** Forum topics only: in a plain group `message_thread_id` names a reply thread, not a place to post. */
export function topicOf(message: {
  is_topic_message?: boolean;
  message_thread_id?: number;
}): number | undefined {
  return message.is_topic_message ? message.message_thread_id : undefined;
}
