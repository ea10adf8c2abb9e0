import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { errorReply, type Reply } from "../reply.js";

/**
 * The flood limit of paste-to-check, per conversation: a pasted list of addresses must not turn
 * the channel into a wall of verdicts. Up to PASTE_LIMIT pastes per window are checked; the next
 * one gets one line saying so, and the rest of the window is silent.
 */
const PASTE_LIMIT = 5;
const PASTE_WINDOW_MS = 60_000;

export type PasteAdmission = { kind: "check" } | { kind: "notice"; reply: Reply } | { kind: "silent" };

const rateKey = (c: ConversationRef): string => `paste:rate:${c.platform}:${c.id}`;

export async function admitPaste(
  deps: Pick<CoreDeps, "store">,
  conversation: ConversationRef,
): Promise<PasteAdmission> {
  // The window starts with its first paste (the key's TTL), in the shared store: every instance counts.
  const count = await deps.store.incrBy(rateKey(conversation), 1, PASTE_WINDOW_MS);
  if (count <= PASTE_LIMIT) return { kind: "check" };
  if (count > PASTE_LIMIT + 1) return { kind: "silent" };
  const seconds = Math.round(PASTE_WINDOW_MS / 1000);
  return {
    kind: "notice",
    reply: errorReply(
      `More than ${PASTE_LIMIT} pasted addresses here within ${seconds} s: I stop checking pastes for the rest of the minute. For a list, use compliance <address> <address> …`,
    ),
  };
}
