import { createActionGroup } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import { formatEpoch } from "../format.js";
import type { ConversationRef } from "../invocation.js";
import { type Block, type Button, buttons, context, type Reply, text } from "../reply.js";
import type { AlertRecord } from "./alert.js";
import { ALERT_BUTTON_TTL_MS } from "./settings.js";

/**
 * How an alert looks in a conversation: the notice its source rendered (kept verbatim, so what
 * an alert says stays its source's business), one line of who did what and when, and the buttons
 * that still make sense in its state. Every rendering gets a fresh button group (one claim per
 * message), so a change never leaves a live button that no longer fits.
 */
export const ACK_KIND = "alert.ack";
export const SNOOZE_KIND = "alert.snooze";
export const RESOLVE_KIND = "alert.resolve";
export type AlertOp = "ack" | "snooze" | "resolve";
const KIND_OF: Record<AlertOp, string> = { ack: ACK_KIND, snooze: SNOOZE_KIND, resolve: RESOLVE_KIND };
const LABEL_OF: Record<AlertOp, string> = { ack: "Ack", snooze: "Snooze 1h", resolve: "Resolve" };

/** Short times read best in a channel: "11:52 UTC" today, the full date otherwise. */
export const whenOf = (ms: number, now: number): string => {
  const full = formatEpoch(ms);
  return full.slice(0, 10) === formatEpoch(now).slice(0, 10) ? `${full.slice(11, 16)} UTC` : full;
};

/** The operations that still make sense in a state. */
export function opsFor(alert: Pick<AlertRecord, "state">): AlertOp[] {
  switch (alert.state) {
    case "open":
      return ["ack", "snooze", "resolve"];
    case "acknowledged":
      return ["snooze", "resolve"];
    case "snoozed":
      return ["resolve"];
    case "resolved":
      return [];
  }
}

/** One line: "Acknowledged by olga at 11:52 UTC", "Snoozed by olga until 12:52 UTC", … */
function stateLine(alert: AlertRecord, now: number): string {
  const last = [...alert.history].reverse().find((c) => c.what === alert.state || c.what === "cleared");
  const by = last?.by ?? "the bot";
  const at = whenOf(last?.at ?? alert.raisedAt, now);
  switch (alert.state) {
    case "open":
      return `Alert ${alert.id} · ${alert.severity} · open since ${whenOf(alert.raisedAt, now)} · not acknowledged yet`;
    case "acknowledged":
      return `Alert ${alert.id} · acknowledged by ${by} at ${at}`;
    case "snoozed":
      return `Alert ${alert.id} · snoozed by ${by} until ${whenOf(alert.snoozedUntil ?? 0, now)}${ackedNote(alert)}`;
    case "resolved":
      return last?.what === "cleared"
        ? `Alert ${alert.id} · resolved at ${at}: the cause cleared${last.note ? ` (${last.note})` : ""}`
        : `Alert ${alert.id} · resolved by ${by} at ${at}${ackedNote(alert)}`;
  }
}

const ackedNote = (alert: AlertRecord): string =>
  alert.ackedBy ? ` (acknowledged by ${alert.ackedBy.by})` : "";

/** The buttons of `ops` for `ids` in `conversation`, as one group. */
export async function opButtons(
  deps: Pick<CoreDeps, "store" | "now">,
  conversation: ConversationRef,
  ids: readonly string[],
  ops: readonly AlertOp[],
  labels: Partial<Record<AlertOp, string>> = {},
): Promise<Block[]> {
  if (ops.length === 0) return [];
  const { tokens } = await createActionGroup(
    deps.store,
    { conversation, createdBy: "alerts", ttlMs: ALERT_BUTTON_TTL_MS, now: deps.now },
    ops.map((op) => ({ kind: KIND_OF[op], payload: { ids: [...ids] }, role: "operator" as const })),
  );
  const items: Button[] = ops.map((op, i) => ({
    label: labels[op] ?? LABEL_OF[op],
    token: tokens[i] ?? "",
    ...(op === "ack" && { style: "primary" as const }),
  }));
  return [buttons(...items)];
}

/** The alert's message for `conversation`: its content, its state line, its buttons. */
export async function renderAlert(
  deps: Pick<CoreDeps, "store" | "now">,
  alert: AlertRecord,
  content: Reply,
  conversation: ConversationRef,
): Promise<Reply> {
  const now = deps.now();
  const line = context(stateLine(alert, now));
  const controls = await opButtons(deps, conversation, [alert.id], opsFor(alert));
  // Snoozed: hidden to one line until it comes back.
  const body = alert.state === "snoozed" ? [text(alert.title)] : content.blocks;
  const ownButtons = content.blocks.some((b) => b.type === "buttons");
  // The source's own buttons (Stop Host Mode) stay while the alert is live.
  const kept = alert.state === "resolved" ? body.filter((b) => b.type !== "buttons") : body;
  return {
    ...content,
    blocks: [...kept, line, ...controls],
    alertOf: { id: alert.id, digestible: !ownButtons && alert.state === "open" },
  };
}
