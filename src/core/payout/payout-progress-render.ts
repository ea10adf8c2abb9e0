import type { OrchestratorStatus, OrchestratorStatusItem } from "../../service/orchestrator.js";
import { capList, formatAmount, formatEpoch, moreLine } from "../format.js";
import { formatCount } from "../parse/echo.js";
import {
  type Block,
  buttons,
  code,
  context,
  fields,
  file,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import type { CancelMark, PayoutRun } from "./payout-run.js";

/**
 * The run's one progress message, edited in place as the status endpoint reports the addresses,
 * and its end: every address's outcome (up to 10 in the message; more in a CSV file in the thread).
 */
export const OUTCOME_LISTED_MAX = 10;
const STATES = [
  "queued",
  "processing",
  "completed",
  "partial",
  "failed",
  "insufficient_balance",
  "cancelled",
  "credentials_revoked",
] as const;

type Summary = OrchestratorStatus["data"]["summary"];

/** "2 completed · 1 processing · 7 queued": the counters that are not zero. */
function countsLine(summary: Summary): string {
  const parts = STATES.filter((s) => summary[s] > 0).map(
    (s) => `${formatCount(summary[s])} ${s.replace("_", " ")}`,
  );
  return parts.length > 0 ? parts.join(" · ") : "nothing reported yet";
}

const delegatedOf = (items: readonly OrchestratorStatusItem[]) =>
  items.reduce((n, i) => n + i.energy.delegated, 0);

/** What the progress message shows, so an unchanged poll edits nothing. */
export const progressFingerprint = (status: OrchestratorStatus, cancel: CancelMark | null): string =>
  JSON.stringify([status.data.summary, delegatedOf(status.data.items), cancel?.at ?? null]);

function cancelLine(cancel: CancelMark): string {
  return `Cancel asked by ${whoName(cancel.by)} at ${formatEpoch(cancel.at)}: ${formatCount(cancel.cancelled)} queued address${cancel.cancelled === 1 ? "" : "es"} cancelled; addresses already picked up go on.`;
}

export interface ProgressView {
  run: PayoutRun;
  /** Undefined until the first status read (the Confirm's own answer). */
  status?: OrchestratorStatus;
  requestId?: number;
  replayed?: boolean;
  cancel: CancelMark | null;
  /** A line in place of the counts (the outcome is not known yet). */
  note?: string;
  /** The price fell since the quote: ordered at the lower price. */
  priceNote?: string;
}

export function renderProgress(view: ProgressView): Reply {
  const { run, status, cancel } = view;
  const summary = status?.data.summary;
  const queued = summary === undefined ? run.items.length : summary.queued;
  const leftOut = run.leftOut > 0 ? ` (${formatCount(run.leftOut)} left out at the quote)` : "";
  const requestId = status?.data.requestId ?? view.requestId;
  const blocks: Block[] = [
    header(view.replayed ? "Payout run (already accepted)" : "Payout run"),
    fields(
      ["Addresses", `${formatCount(run.items.length)}${leftOut}`],
      [
        "Progress",
        view.note ??
          (summary === undefined ? `${formatCount(run.items.length)} queued` : countsLine(summary)),
      ],
      [
        "Energy delegated",
        `${formatCount(status ? delegatedOf(status.data.items) : 0)} of ${formatCount(run.energy)}`,
      ],
      ["Quoted", formatAmount(run.quoteTrx)],
      ...(requestId === undefined ? [] : [["Request", code(String(requestId))] as [string, Span]]),
    ),
  ];
  if (view.priceNote !== undefined) blocks.push(text(view.priceNote));
  if (cancel) blocks.push(text(cancelLine(cancel)));
  if (!cancel && queued > 0 && view.note === undefined) {
    blocks.push(buttons({ label: "Cancel queued addresses", token: run.cancelToken, style: "danger" }));
  }
  blocks.push(
    context(
      `Confirmed by ${whoName(run.actor)}. Nothing is charged at acceptance; each energy order is charged as it is delivered. Delivery notices go in this message's thread. Key ${run.key}.`,
    ),
  );
  const line = summary === undefined ? `${formatCount(run.items.length)} queued` : countsLine(summary);
  return publicReply(`Payout run of ${formatCount(run.items.length)} addresses: ${line}`, blocks);
}

function itemLine(item: OrchestratorStatusItem): Span[] {
  const { energy } = item;
  return [
    code(item.receiveAddress),
    plain(
      ` ${item.status.replace("_", " ")}: ${formatCount(energy.delegated)} of ${formatCount(energy.requested)}`,
    ),
  ];
}

/** Spans of several lines, one per item. */
function itemLines(items: readonly OrchestratorStatusItem[]): Span[] {
  return items.flatMap((item, i) => [...(i > 0 ? [plain("\n")] : []), ...itemLine(item)]);
}

export function renderOutcome(run: PayoutRun, status: OrchestratorStatus, cancel: CancelMark | null): Reply {
  const { items, summary, requestId } = status.data;
  const delivered = items.every((i) => i.status === "completed");
  const title = delivered ? "Payout run delivered" : "Payout run finished";
  const energy = `${formatCount(delegatedOf(items))} of ${formatCount(run.energy)} energy delegated`;
  const blocks: Block[] = [header(title), text(`Request ${requestId}: ${countsLine(summary)}. ${energy}.`)];
  if (items.length <= OUTCOME_LISTED_MAX) blocks.push(text(...itemLines(items)));
  else {
    const notDone = items.filter((i) => i.status !== "completed");
    const { shown, more } = capList(notDone, OUTCOME_LISTED_MAX);
    if (shown.length > 0) {
      blocks.push(text("Not completed:"));
      blocks.push(text(...itemLines(shown), ...(more > 0 ? [plain(`\n${moreLine(more)}`)] : [])));
    }
    blocks.push(text("Every address's outcome is in the CSV file in this message's thread."));
  }
  if (cancel) blocks.push(text(cancelLine(cancel)));
  blocks.push(
    context(
      `Confirmed by ${whoName(run.actor)}; quoted ${formatAmount(run.quoteTrx)}. Only what was delivered (energy orders, activation, bandwidth) was charged. Key ${run.key}.`,
    ),
  );
  return publicReply(
    `${title}: ${formatCount(items.length)} addresses, ${countsLine(summary)}; ${energy}`,
    blocks,
  );
}

const csvCell = (value: string): string => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The outcome as CSV: one row per address. */
function outcomeCsv(status: OrchestratorStatus): string {
  const head =
    "address,requested,delegated,status,energy_status,chunks_done,chunks_total,order_ids,hashes,activation,activation_hash,bandwidth";
  const rows = status.data.items.map((i) =>
    [
      i.receiveAddress,
      String(i.energy.requested),
      String(i.energy.delegated),
      i.status,
      i.energy.status ?? "",
      String(i.energy.chunks.done),
      String(i.energy.chunks.total),
      i.energy.orderIds.join(" "),
      i.energy.hashes.join(" "),
      i.activation.status ?? "",
      i.activation.hash ?? "",
      i.bandwidth.skipReason
        ? `${i.bandwidth.status ?? ""} (${i.bandwidth.skipReason})`
        : (i.bandwidth.status ?? ""),
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[head, ...rows].join("\n")}\n`;
}

export function renderOutcomeFile(status: OrchestratorStatus): Reply {
  const { requestId, items } = status.data;
  const line = `Outcome of payout run ${requestId}: ${formatCount(items.length)} addresses`;
  // The file alone: its title is the caption, and it answers the run's message itself.
  return publicReply(line, [
    file({
      filename: `payout-${requestId}.csv`,
      contentType: "text/csv",
      bytes: new TextEncoder().encode(outcomeCsv(status)),
      title: line,
    }),
  ]);
}
