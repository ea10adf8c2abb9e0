import type { Store } from "../../store/store.js";
import type { ConversationRef } from "../invocation.js";

/**
 * A button works only where it was shown. The action record keeps the conversation its command
 * came from (the message with the buttons is posted there); a press must come from the same
 * platform and conversation. The message id is not known when the buttons are created (the message
 * is posted after, and Slack's `response_url` never says its ts), so the group is bound to the
 * first message it is pressed in: a later press of the same group from another message of that
 * conversation is refused too. A press that names no message (Slack ephemeral messages, whose ts
 * Slack does not promise to keep; the console, which has one conversation and no messages) is
 * checked by conversation only. Threads are not compared: a Slack message that gets replies
 * reports its own ts as `thread_ts`, which the command that made it did not have.
 */
export const ELSEWHERE_LINE = "This button belongs to another conversation; nothing was done.";

export interface PressedIn {
  conversation: ConversationRef;
  /** Slack `container.message_ts`, Telegram `callback_query.message.message_id`. */
  messageId?: string;
}

const MESSAGE_KEY = (group: string) => `action-message:${group}`;

const sameConversation = (shown: ConversationRef, pressed: ConversationRef): boolean =>
  shown.platform === pressed.platform && shown.id === pressed.id;

/**
 * True when `messageId` is the message the group was first pressed in (binding it, when this is
 * the first press). The mark lives as long as the group's buttons.
 */
async function pressedInItsMessage(
  store: Store,
  group: string,
  messageId: string | undefined,
  ttlMs: number,
): Promise<boolean> {
  if (messageId === undefined || messageId === "") return true;
  if (await store.setIfNotExists(MESSAGE_KEY(group), messageId, Math.max(1, Math.ceil(ttlMs)))) return true;
  return (await store.get(MESSAGE_KEY(group))) === messageId;
}

/** True when a button of `shown` may run from where it was pressed. */
export async function pressedWhereShown(
  store: Store,
  record: { conversation: ConversationRef; confirmationId: string },
  pressed: PressedIn,
  ttlMs: number,
): Promise<boolean> {
  if (!sameConversation(record.conversation, pressed.conversation)) return false;
  return pressedInItsMessage(store, record.confirmationId, pressed.messageId, ttlMs);
}
