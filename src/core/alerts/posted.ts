import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { type Block, context, type Reply } from "../reply.js";
import { recordMessage } from "./alert.js";
import { opButtons } from "./render.js";

/**
 * What the notify worker tells the alerts (src/wiring/workers.ts wires these into it): the
 * message id an alert got, so a later change edits it in place; and the buttons a digest of
 * several alerts carries (Ack all, Snooze all 1h, Resolve all), since a storm of alerts is folded
 * into as few messages as the platform allows and their own buttons do not fit in a list.
 */
export async function alertPosted(
  deps: Pick<CoreDeps, "store">,
  conversation: ConversationRef,
  reply: Reply,
  messageId: string,
): Promise<void> {
  if (reply.alertOf === undefined) return;
  await recordMessage(deps.store, reply.alertOf.id, conversation, messageId);
}

export async function alertDigestBlocks(
  deps: Pick<CoreDeps, "store" | "now">,
  conversation: ConversationRef,
  replies: readonly Reply[],
): Promise<Block[]> {
  const ids = [...new Set(replies.flatMap((r) => (r.alertOf ? [r.alertOf.id] : [])))];
  if (ids.length === 0) return [];
  const controls = await opButtons(deps, conversation, ids, ["ack", "snooze", "resolve"], {
    ack: `Ack all ${ids.length}`,
    snooze: "Snooze all 1h",
    resolve: "Resolve all",
  });
  return [context(`${ids.length} alerts above; each one stays listed by the alerts command.`), ...controls];
}
