import { createActionGroup } from "../actions.js";
import { whenOf } from "../alerts/index.js";
import type { CoreDeps } from "../deps.js";
import { formatEpoch } from "../format.js";
import type { ConversationRef } from "../invocation.js";
import {
  type Block,
  buttons,
  code,
  context,
  fields,
  header,
  publicReply,
  type Reply,
  text,
} from "../reply.js";
import { type CaseEvent, type CaseRecord, CLOSED_STATES } from "./case-record.js";

/**
 * How a case looks: its message in the alert destination (address, state, owner, last event, and
 * the buttons that still make sense), its one line in lists, and its timeline. Every rendering gets
 * a fresh button group (one claim per message), like the alerts' (src/core/alerts/render.ts).
 */
export const TAKE_KIND = "case.take";
export const CLEAR_KIND = "case.clear";
export const REPORT_KIND = "case.report";
/** Case buttons are read long after they were posted. */
const CASE_BUTTON_TTL_MS = 30 * 24 * 3_600_000;

const WHAT: Record<CaseEvent["what"], string> = {
  opened: "opened",
  finding: "new finding",
  reopened: "reopened",
  taken: "taken",
  note: "note",
  cleared: "cleared",
  reported: "reported",
  escalated: "escalated (SLA)",
};

export function eventLine(event: CaseEvent, now: number): string {
  const note = event.note ? `: ${event.note}` : "";
  return `${whenOf(event.at, now)} · ${WHAT[event.what]} by ${event.by}${note}`;
}

export function stateOf(record: CaseRecord): string {
  if (record.state === "taken" && record.owner) return `taken by ${record.owner.by}`;
  if (CLOSED_STATES.has(record.state)) {
    const last = [...record.timeline].reverse().find((e) => e.what === record.state);
    return `${record.state} by ${last?.by ?? "?"}`;
  }
  return "open, nobody has taken it";
}

/** One line for lists: `C12 · TAddr… · taken by olga · since 11:52 UTC`. */
export function caseLine(record: CaseRecord, now: number): string {
  return `${record.id} · ${record.address} · ${stateOf(record)} · opened ${whenOf(record.openedAt, now)}`;
}

async function caseButtons(
  deps: Pick<CoreDeps, "store" | "now">,
  conversation: ConversationRef,
  record: CaseRecord,
): Promise<Block[]> {
  if (CLOSED_STATES.has(record.state)) return [];
  const kinds = record.state === "open" ? [TAKE_KIND, CLEAR_KIND, REPORT_KIND] : [CLEAR_KIND, REPORT_KIND];
  const { tokens } = await createActionGroup(
    deps.store,
    { conversation, createdBy: "cases", ttlMs: CASE_BUTTON_TTL_MS, now: deps.now },
    kinds.map((kind) => ({ kind, payload: { id: record.id }, role: "operator" as const })),
  );
  const label: Record<string, string> = {
    [TAKE_KIND]: "Take",
    [CLEAR_KIND]: "Clear…",
    [REPORT_KIND]: "Report…",
  };
  return [
    buttons(
      ...kinds.map((kind, i) => ({
        label: label[kind] ?? kind,
        token: tokens[i] ?? "",
        ...(kind === TAKE_KIND && { style: "primary" as const }),
        ...(kind === REPORT_KIND && { style: "danger" as const }),
      })),
    ),
  ];
}

/** The case's message in `conversation`: what, its state, owner and last event, its buttons. */
export async function renderCase(
  deps: Pick<CoreDeps, "store" | "now">,
  record: CaseRecord,
  conversation: ConversationRef,
): Promise<Reply> {
  const now = deps.now();
  const first = record.timeline.find((e) => e.what === "opened");
  const last = record.timeline[record.timeline.length - 1];
  const summary = `AML case ${record.id}: ${record.address} — ${stateOf(record)}`;
  const blocks: Block[] = [
    header(`AML case ${record.id}`),
    text("Address ", code(record.address)),
    fields(
      ["State", stateOf(record)],
      ["Owner", record.owner?.by ?? "nobody yet"],
      ["Found", first?.note ?? "—"],
      [
        "Findings",
        String(
          record.timeline.filter((e) => e.what !== "note" && /finding|opened|reopened/.test(e.what)).length,
        ),
      ],
    ),
    context(`Last: ${last ? eventLine(last, now) : "—"}`),
    ...(await caseButtons(deps, conversation, record)),
  ];
  // `alertOf`: the notify worker records the message id, so every change edits it in place.
  return { ...publicReply(summary, blocks), alertOf: { id: record.id } };
}

/** `case <id>`: the whole timeline. */
export function renderTimeline(record: CaseRecord, now: number): Reply {
  const head = `Case ${record.id} · ${record.address} · ${stateOf(record)}`;
  const lines = record.timeline.map((e) => `• ${eventLine(e, now)}`);
  return publicReply(head, [
    text(head),
    text(lines.join("\n")),
    context(`Opened ${formatEpoch(record.openedAt)}; every event is in the audit log.`),
  ]);
}
