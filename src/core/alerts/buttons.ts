import { z } from "zod";
import type { ActionContext, ActionHandler } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey, conversationKey } from "../invocation.js";
import { context, publicReply, type Reply, text } from "../reply.js";
import { type AlertRecord, messagesOf, recordMessage, type Transition, updateAlert } from "./alert.js";
import { contentsOf, refreshMessages } from "./raise.js";
import {
  ACK_KIND,
  type AlertOp,
  opButtons,
  RESOLVE_KIND,
  renderAlert,
  SNOOZE_KIND,
  whenOf,
} from "./render.js";
import { SNOOZE_MS } from "./settings.js";

/**
 * Ack, Snooze 1h and Resolve. The core has checked the role (operators and admins; a viewer gets
 * one line and the button stays usable) and claimed the message's button group once; the change
 * itself is a versioned update of the alert, so the same alert changed from two messages at once
 * is decided once. The reply takes the place of the pressed message; the alert's other messages
 * (copies, the escalation's target) are edited through the notifier.
 */
const payloadSchema = z.object({
  ids: z
    .array(z.string().regex(/^[A-Za-z0-9_-]{12}$/))
    .min(1)
    .max(200),
});

const nameOf = (actor: Actor): string => actor.displayName ?? actorKey(actor);

function transitionFor(op: AlertOp, actor: Actor, now: number): Transition {
  const by = nameOf(actor);
  const byKey = actorKey(actor);
  return (alert) => {
    if (alert.state === "resolved") return { refused: `Alert ${alert.id} was already resolved.` };
    switch (op) {
      case "ack":
        if (alert.state !== "open") return { refused: `Alert ${alert.id} is already ${alert.state}.` };
        return {
          ...alert,
          state: "acknowledged",
          ackedBy: { by, at: now },
          history: [...alert.history, { what: "acknowledged", at: now, by, byKey }],
        };
      case "snooze":
        if (alert.state === "snoozed") return { refused: `Alert ${alert.id} is already snoozed.` };
        return {
          ...alert,
          state: "snoozed",
          snoozedUntil: now + SNOOZE_MS,
          history: [...alert.history, { what: "snoozed", at: now, by, byKey }],
        };
      case "resolve":
        return {
          ...alert,
          state: "resolved",
          snoozedUntil: undefined,
          history: [...alert.history, { what: "resolved", at: now, by, byKey }],
        };
    }
  };
}

/** Applies `op` to one alert; its other messages are edited, a snooze's return is scheduled. */
export async function applyOp(
  deps: CoreDeps,
  id: string,
  op: AlertOp,
  actor: Actor,
  pressedMessage?: string,
): Promise<{ ok: boolean; line?: string; alert: AlertRecord | null }> {
  const result = await updateAlert(deps.store, id, transitionFor(op, actor, deps.now()));
  if (!result.ok) return result;
  const alert = result.alert;
  if (op === "snooze" && alert.snoozedUntil !== undefined) {
    await deps.jobs.schedule(
      { kind: "alert-unsnooze", alertId: id, until: alert.snoozedUntil },
      { delayMs: SNOOZE_MS, jobId: `alert-unsnooze:${id}:${alert.snoozedUntil}` },
    );
  }
  await refreshMessages(deps, alert, pressedMessage);
  return { ok: true, alert };
}

function handler(kind: string, op: AlertOp): ActionHandler {
  return {
    kind,
    role: "operator",
    async run(ctx, payload) {
      const parsed = payloadSchema.safeParse(payload);
      if (!parsed.success) throw new Error(`bad ${kind} payload: ${parsed.error.message}`);
      const { ids } = parsed.data;
      return ids.length === 1 ? one(ctx, ids[0] ?? "", op) : many(ctx, ids, op);
    },
  };
}

/** One alert's message: re-rendered in its new state (or as it stands, when someone was first). */
async function one(ctx: ActionContext, id: string, op: AlertOp): Promise<Reply> {
  const { deps, invocation } = ctx;
  const pressed = invocation.messageId;
  const done = await applyOp(deps, id, op, invocation.actor, pressed);
  if (done.alert === null) return publicReply(done.line ?? "This alert is gone.", [text(done.line ?? "")]);
  // Slack reports a message that has replies as its own thread: the alert's entry is the one of
  // the same conversation with or without that thread.
  const contents = await contentsOf(deps, id);
  const same = (c: { conversation: { platform: string; id: string } }) =>
    c.conversation.platform === invocation.conversation.platform &&
    c.conversation.id === invocation.conversation.id;
  const exact = contents.get(conversationKey(invocation.conversation));
  const entry = exact ?? [...contents.values()].find(same);
  const where = entry ? conversationKey(entry.conversation) : conversationKey(invocation.conversation);
  // The first message seen for the conversation stays the one later changes edit (a press on
  // the escalation must not take the alert's own message's place).
  if (pressed !== undefined && !(await messagesOf(deps.store, id)).has(where)) {
    await recordMessage(deps.store, id, entry?.conversation ?? invocation.conversation, pressed);
  }
  const content = entry?.reply ?? publicReply(done.alert.title, []);
  const reply = await renderAlert(deps, done.alert, content, invocation.conversation);
  if (done.ok) return reply;
  // Someone else changed it first: the message shows the state it is in, and says so.
  return {
    ...reply,
    blocks: [...reply.blocks.slice(0, -1), context(done.line ?? ""), ...reply.blocks.slice(-1)],
  };
}

/** A digest's buttons: every alert it lists. */
async function many(ctx: ActionContext, ids: readonly string[], op: AlertOp): Promise<Reply> {
  const { deps, invocation } = ctx;
  const changed: AlertRecord[] = [];
  const lines: string[] = [];
  for (const id of ids) {
    const done = await applyOp(deps, id, op, invocation.actor);
    if (done.ok && done.alert) changed.push(done.alert);
    if (done.alert) lines.push(`• ${done.alert.title} — ${done.alert.state}`);
  }
  const now = deps.now();
  const verb = op === "ack" ? "acknowledged" : op === "snooze" ? "snoozed for an hour" : "resolved";
  const head = `${changed.length} of ${ids.length} alerts ${verb} by ${nameOf(invocation.actor)} at ${whenOf(now, now)}`;
  const left =
    op === "resolve" ? [] : op === "ack" ? (["snooze", "resolve"] as AlertOp[]) : (["resolve"] as AlertOp[]);
  const controls = await opButtons(deps, invocation.conversation, ids, left, {
    snooze: "Snooze all 1h",
    resolve: "Resolve all",
  });
  return publicReply(head, [text(head), text(lines.join("\n")), ...controls]);
}

export const alertActions: readonly ActionHandler[] = [
  handler(ACK_KIND, "ack"),
  handler(SNOOZE_KIND, "snooze"),
  handler(RESOLVE_KIND, "resolve"),
];
