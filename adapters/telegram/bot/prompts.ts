import type { Context, Filter } from "grammy";
import type { FormOffer, Invocation, Reply } from "../../../src/core/index.js";
import type { Store } from "../../../src/store/store.js";

/**
 * Telegram's form for missing arguments: `/energy` alone gets a ForceReply prompt ("reply with the
 * address and the amount"), and the person's reply to that prompt is taken as the arguments, so
 * `TR7… 65k` runs as `energy TR7… 65k` would. The prompt is remembered in the shared store (any
 * instance may get the reply) for the person it asked, for a limited time. In a group with
 * privacy mode on, Telegram still delivers replies to the bot's own messages.
 */
const PROMPT_TTL_MS = 15 * 60_000;

export interface Prompts {
  remember(chatId: number, messageId: number, prompt: { verb: string; userId: number }): Promise<void>;
  /** The verb a reply to `messageId` answers, when it was asked of `userId`; once. */
  take(chatId: number, messageId: number, userId: number): Promise<string | undefined>;
  /**
   * An answer that was refused (bad input): the prompt is open again for the rest of its time,
   * so the person can answer once more instead of typing the command again.
   */
  reopen?(chatId: number, messageId: number, userId: number): Promise<void>;
}

interface StoredPrompt {
  verb?: unknown;
  userId?: unknown;
  /** Epoch ms; absent in prompts of older releases. */
  expiresAt?: unknown;
}

const promptKey = (chatId: number, messageId: number): string => `telegram:prompt:${chatId}:${messageId}`;
/** A taken prompt, kept aside until its answer is known to be good (`reopen` puts it back). */
const takenKey = (chatId: number, messageId: number): string => `${promptKey(chatId, messageId)}:taken`;

export function createPrompts(store: Store, now: () => number = Date.now): Prompts {
  return {
    async remember(chatId, messageId, prompt) {
      const stored = { ...prompt, expiresAt: now() + PROMPT_TTL_MS };
      await store.set(promptKey(chatId, messageId), JSON.stringify(stored), PROMPT_TTL_MS);
    },
    async take(chatId, messageId, userId) {
      const key = promptKey(chatId, messageId);
      const raw = await store.get(key);
      if (raw === null) return undefined;
      const prompt = JSON.parse(raw) as StoredPrompt;
      // Someone else answering the prompt in a group is conversation, not the arguments.
      if (prompt.userId !== userId || typeof prompt.verb !== "string") return undefined;
      // Taken once (two quick answers never run twice); kept aside for `reopen`.
      const taken = await store.take(key);
      if (taken === null) return undefined;
      const leftMs = remainingMs(prompt, now());
      if (leftMs > 0) await store.set(takenKey(chatId, messageId), taken, leftMs);
      return prompt.verb;
    },
    async reopen(chatId, messageId, userId) {
      const raw = await store.take(takenKey(chatId, messageId));
      if (raw === null) return;
      const prompt = JSON.parse(raw) as StoredPrompt;
      const leftMs = remainingMs(prompt, now());
      if (prompt.userId !== userId || leftMs <= 0) return;
      await store.setIfNotExists(promptKey(chatId, messageId), raw, leftMs);
    },
  };
}

const remainingMs = (prompt: StoredPrompt, at: number): number =>
  typeof prompt.expiresAt === "number" ? prompt.expiresAt - at : PROMPT_TTL_MS;

/** The command line a reply to one of our prompts stands for (and what asked), or undefined for any other message. */
export async function answeredPrompt(
  ctx: Filter<Context, "message:text">,
  prompts: Prompts | undefined,
): Promise<{ line: string; verb: string } | undefined> {
  const asked = ctx.message.reply_to_message;
  if (prompts === undefined || asked === undefined || asked.from?.id !== ctx.me.id) return undefined;
  const verb = await prompts.take(ctx.chat.id, asked.message_id, ctx.from.id);
  return verb === undefined ? undefined : { line: `${verb} ${ctx.message.text.trim()}`, verb };
}

/**
 * After the answer to a prompt ran: a refusal of the input (a private one-line error) leaves the
 * prompt open for another answer until it expires; anything else (a quote, a result) closes it.
 */
export async function settlePrompt(
  ctx: Filter<Context, "message:text">,
  prompts: Prompts | undefined,
  reply: Reply,
  verb: string,
): Promise<"asked again" | undefined> {
  const asked = ctx.message.reply_to_message;
  if (prompts?.reopen === undefined || asked === undefined || !isRefusal(reply)) return undefined;
  await prompts.reopen(ctx.chat.id, asked.message_id, ctx.from.id);
  // The refusal asks again (the reply box opens once more), and an answer to it is taken too.
  const sent = await ctx.api.sendMessage(
    ctx.chat.id,
    `${reply.summary} Reply to this message with another answer.`,
    {
      ...(ctx.message.is_topic_message && { message_thread_id: ctx.message.message_thread_id }),
      reply_parameters: { message_id: ctx.message.message_id, allow_sending_without_reply: true },
      reply_markup: { force_reply: true, selective: true },
    },
  );
  await prompts.remember(ctx.chat.id, sent.message_id, { verb, userId: ctx.from.id });
  return "asked again";
}

/** A one-line private answer with nothing to click: bad input, a refusal. */
const isRefusal = (reply: Reply): boolean =>
  reply.visibility === "private" && reply.blocks.every((b) => b.type === "text");

/**
 * `/energy` alone: a ForceReply prompt is sent ("asked"), or the refusal line comes back for the
 * caller to post; undefined when the command has no form or came with its arguments.
 */
export async function askedForArguments(
  ctx: Filter<Context, "message:text">,
  deps: {
    core: { formFor?(invocation: Extract<Invocation, { kind: "command" }>): FormOffer | undefined };
    prompts?: Prompts;
  },
  invocation: Extract<Invocation, { kind: "command" }>,
): Promise<"asked" | Reply | undefined> {
  const offer = deps.core.formFor?.(invocation);
  if (offer === undefined || deps.prompts === undefined) return undefined;
  if (offer.kind === "refused") return offer.reply;
  const sent = await ctx.api.sendMessage(ctx.chat.id, offer.spec.prompt, {
    ...(ctx.message.is_topic_message && { message_thread_id: ctx.message.message_thread_id }),
    reply_parameters: { message_id: ctx.message.message_id, allow_sending_without_reply: true },
    // selective: in a group only the person who typed the command is asked.
    reply_markup: { force_reply: true, selective: true, input_field_placeholder: offer.spec.placeholder },
  });
  await deps.prompts.remember(ctx.chat.id, sent.message_id, { verb: offer.spec.verb, userId: ctx.from.id });
  return "asked";
}
