import { z } from "zod";

/**
 * Where a chat message came from and where replies and later notifications go. Serialisable. The
 * platform is a name of the open set the wiring registers (`src/wiring/platforms.ts`): the core
 * knows none of them, only what `PlatformFacts` says of each.
 */
export type Platform = string;

/** A platform's name as keys and identities carry it (`<platform>:<id>`): lowercase, no colon. */
export const isPlatformName = (name: string): boolean => /^[a-z][a-z0-9]{0,15}$/.test(name);

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
  /**
   * Telegram: the message later posts answer (the one that carried a confirmed outcome), so an
   * order's follow-ups read as replies to it. Slack threads use `threadId` instead.
   */
  replyTo?: string;
}

const platformSchema = z.string().refine(isPlatformName);

/** The stored forms of `Actor` and `ConversationRef`, checked on the way out of the store. */
export const actorSchema = z.object({
  platform: platformSchema,
  userId: z.string(),
  displayName: z.string().optional(),
}) satisfies z.ZodType<Actor>;

export const conversationRefSchema = z.object({
  platform: platformSchema,
  id: z.string(),
  threadId: z.string().optional(),
  replyTo: z.string().optional(),
}) satisfies z.ZodType<ConversationRef>;

/**
 * A file that came with a command, as the adapter read it with the platform's own API. The adapter
 * reads at most `SHARED_FILE_MAX_BYTES` (a larger file arrives without `bytes`, with its size), and
 * a file it could not read arrives with `unreadable` saying why; the command decides what it accepts.
 */
export interface SharedFile {
  name: string;
  /** The platform's MIME type, when it gave one. */
  mimeType?: string;
  sizeBytes: number;
  bytes?: Uint8Array;
  unreadable?: string;
}

/**
 * The most an adapter downloads of a shared file: a watch file of 10 000 addresses (~360 KB) fits.
 * A command may accept less (a payout file: 64 KB) and says so itself.
 */
export const SHARED_FILE_MAX_BYTES = 512 * 1024;

export type Invocation =
  | {
      kind: "command";
      actor: Actor;
      conversation: ConversationRef;
      text: string;
      /** The message the command was typed in, when the platform has one (Telegram message_id). */
      messageId?: string;
      /** A file shared with the command (Slack file share, Telegram document, console `@path`). */
      file?: SharedFile;
    }
  | {
      kind: "action";
      actor: Actor;
      conversation: ConversationRef;
      /** The button's opaque token. */
      token: string;
      /** The message that carried the button (Slack message ts, Telegram message_id), when known. */
      messageId?: string;
    };

/** `slack:U123`, `telegram:42`: the form used by OPS_ADMINS / OPS_OPERATORS. */
export const actorKey = (actor: Actor): string => `${actor.platform}:${actor.userId}`;

export const conversationKey = (c: ConversationRef): string =>
  c.threadId ? `${c.platform}:${c.id}:${c.threadId}` : `${c.platform}:${c.id}`;

/** The conversation itself, outside any thread or reply (where everyone in it sees a message). */
export const atTop = (c: ConversationRef): ConversationRef => ({ platform: c.platform, id: c.id });
