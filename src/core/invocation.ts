/** Where a chat message came from and where replies and later notifications go. Serialisable. */
export type Platform = "slack" | "telegram" | "console";

export interface Actor {
  platform: Platform;
  /** Platform user id (Slack `U…`, Telegram numeric id, console user name). */
  userId: string;
  displayName?: string;
}

export interface ConversationRef {
  platform: Platform;
  /** Slack channel id, Telegram chat id, console session id. */
  id: string;
  /** Slack thread ts, Telegram message_thread_id, when replies belong in a thread. */
  threadId?: string;
}

export type Invocation =
  | { kind: "command"; actor: Actor; conversation: ConversationRef; text: string }
  | {
      kind: "action";
      actor: Actor;
      conversation: ConversationRef;
      /** The button's opaque token. */
      token: string;
      /** The message that carried the button, where the platform names it (Slack ts, Telegram id). */
      messageId?: string;
    };

/** `slack:U123`, `telegram:42`: the form used by OPS_ADMINS / OPS_OPERATORS. */
export const actorKey = (actor: Actor): string => `${actor.platform}:${actor.userId}`;

export const conversationKey = (c: ConversationRef): string =>
  c.threadId ? `${c.platform}:${c.id}:${c.threadId}` : `${c.platform}:${c.id}`;
