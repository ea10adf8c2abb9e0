import type { Notification } from "../../service/webhook-events.js";
import { type Block, context, type Reply } from "../reply.js";
import { definitionOf } from "./registry.js";

/**
 * What the service tells the bot later (order and report webhooks, Host Mode callbacks) as
 * platform-neutral replies, each rendered by its event's definition in its feature folder.
 */
export function renderNotification(notification: Notification, explorerTxUrl: string): Reply {
  return definitionOf(notification).render(notification, explorerTxUrl);
}

/** The same message for the alert channel, saying why it landed there. */
export function asAlert(reply: Reply): Reply {
  const note: Block = context(
    "No conversation of this bot is known for it (placed elsewhere, or its record expired): posted to the alert channel.",
  );
  return { ...reply, blocks: [...reply.blocks, note] };
}
