import type {
  OrchestratorAccepted,
  OrchestratorStatus,
  OrchestratorStatusItem,
} from "../../service/orchestrator.js";
import type { Order5mOutcome } from "../../service/order5m.js";
import type { Balance } from "../balance/balance-cache.js";
import { capList, formatAmount, moreLine, plural, shortAddress, txSpan } from "../format.js";
import { formatCount } from "../parse/echo.js";
import type { EnergyQuote } from "../pricing/quote.js";
import {
  type Block,
  type Button,
  buttons,
  code,
  context,
  fields,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";
import { activationNote } from "../spend/activation-bound.js";
import { balanceSpans } from "../spend/outcome-render.js";

export interface QuoteView {
  quote: EnergyQuote;
  balance: Balance;
  /** The deny-list line: "clean", or the warning of an allowed category. */
  denyList: string;
  /** Confirm / Cancel tokens; absent when no button is offered. */
  tokens?: { confirm: string; cancel: string };
  /** Shown instead of the buttons (the balance does not cover the order). */
  refusal?: string;
  /** Extra warnings (spam sender). */
  warnings?: string[];
  /** A line above the quote: why this quote took the place of the one confirmed (the price rose). */
  notice?: string;
  /** The activation fee the caps hold beside the cost (the address may not be active yet). */
  activationTrx?: string;
}

function rentalText(quote: EnergyQuote): string {
  if (quote.route === "order5m") return "5 minutes (one order)";
  const chunks = quote.chunks.reduce((n, c) => n + c.count, 0);
  return `1 hour, through the orchestrator (${plural(chunks, "energy order", "energy orders")})`;
}

function chunkLine(quote: EnergyQuote): string | undefined {
  if (quote.route !== "orchestrator") return undefined;
  const parts = quote.chunks.map(
    (c) =>
      `${c.count} × ${formatCount(c.amount)} energy at ${c.priceSun} SUN = ${formatAmount(c.costTrx)} each`,
  );
  return `Chunks: ${parts.join("; ")}.`;
}

function quoteNotes(quote: EnergyQuote): string[] {
  const notes = [
    "An address not yet active on the network is activated by the order, and the activation cost is added.",
  ];
  if (quote.route === "orchestrator") {
    notes.push("Nothing is charged at acceptance; each energy order is charged as it is delivered.");
  }
  if (quote.mayCostMore) {
    notes.push(
      "Orders of 300,000 energy and above may cost more than quoted when a provider declines and the order is rerouted.",
    );
  }
  return notes;
}

function costText(quote: EnergyQuote, activationTrx: string | undefined): string {
  const cost = `${formatAmount(quote.costTrx)} (≈ $${quote.costUsd})`;
  return activationTrx === undefined ? cost : `${cost} ${activationNote(activationTrx)}`;
}

export function renderEnergyQuote(view: QuoteView): Reply {
  const { quote } = view;
  const blocks: Block[] = [
    header("Energy quote"),
    ...(view.notice === undefined ? [] : [text(view.notice)]),
    fields(
      ["Address", code(quote.address)],
      ["Energy", formatCount(quote.amount)],
      ["Rental", rentalText(quote)],
      ["Period", quote.periodLabel],
      ["Unit price", `${quote.unitPriceSun} SUN per energy`],
      ["Cost", costText(quote, view.activationTrx)],
      ["Balance", balanceSpans(view.balance, quote.costTrx)],
      ["Deny list", view.denyList],
    ),
  ];
  const chunks = chunkLine(quote);
  if (chunks) blocks.push(text(chunks));
  for (const warning of view.warnings ?? []) blocks.push(text(`Warning: ${warning}`));
  blocks.push(context(quoteNotes(quote).join(" ")));
  if (view.refusal !== undefined) blocks.push(text(view.refusal));
  if (view.tokens) {
    const confirm: Button = {
      label: `Confirm ${formatAmount(quote.costTrx)}`,
      token: view.tokens.confirm,
      style: "primary",
    };
    blocks.push(buttons(confirm, { label: "Cancel", token: view.tokens.cancel }));
    blocks.push(context("Buttons last 5 minutes; an operator can confirm."));
  }
  const summary = `Energy quote: ${formatCount(quote.amount)} energy to ${shortAddress(quote.address)} for ${formatAmount(quote.costTrx)}`;
  return view.tokens ? publicReply(summary, blocks) : { summary, blocks, visibility: "private" };
}

export interface OrderView {
  outcome: Order5mOutcome;
  address: string;
  amount: number;
  quoteTrx: string;
  explorerTxUrl: string;
  by: string;
}

export function renderOrder5mResult(view: OrderView): Reply {
  const { result, replayed, message } = view.outcome;
  const items: [string, Span | string | Span[]][] = [
    ["Order", code(result.orderId)],
    ["Address", code(view.address)],
    ["Energy delegated", formatCount(result.energy)],
    ["Paid", `${formatAmount(result.paidTRX)} (quoted ${formatAmount(view.quoteTrx)})`],
    ["Delegation", txSpan(view.explorerTxUrl, result.hash)],
  ];
  if (result.activationHash) items.push(["Activation", txSpan(view.explorerTxUrl, result.activationHash)]);
  const title = replayed ? "Energy order (already placed)" : "Energy delegated";
  const blocks: Block[] = [header(title), fields(...items), context(message)];
  if (replayed) {
    blocks.push(context("The service had already placed this order; it was not charged again."));
  }
  blocks.push(context(`Confirmed by ${view.by}. Delivery is confirmed on-chain by the service's webhook.`));
  return publicReply(
    `Energy order ${result.orderId}: ${formatCount(result.energy)} energy to ${shortAddress(view.address)}, paid ${formatAmount(result.paidTRX)}`,
    blocks,
  );
}

export interface AcceptedView {
  accepted: OrchestratorAccepted;
  replayed: boolean;
  address: string;
  amount: number;
  quoteTrx: string;
  by: string;
}

export function renderOrchestratorAccepted(view: AcceptedView): Reply {
  const { data } = view.accepted;
  const chunks = data.items.reduce((n, item) => n + item.energyChunks, 0);
  const blocks: Block[] = [
    header(view.replayed ? "Orchestrator order (already accepted)" : "Orchestrator order accepted"),
    fields(
      ["Request", code(String(data.requestId))],
      ["Address", code(view.address)],
      ["Energy", formatCount(view.amount)],
      ["Energy orders", formatCount(chunks)],
      ["Quoted", formatAmount(view.quoteTrx)],
    ),
    text(
      "Nothing is charged yet: each energy order is charged as it is delivered. I will post a summary here when every address is final.",
    ),
    context(`Confirmed by ${view.by}. Key ${data.idempotencyKey}.`),
  ];
  return publicReply(
    `Orchestrator request ${data.requestId} accepted: ${formatCount(view.amount)} energy to ${shortAddress(view.address)}`,
    blocks,
  );
}

/** How many delegation hashes a summary links per address (the rest is counted). */
const SUMMARY_HASHES_MAX = 5;

function hashSpans(explorerTxUrl: string, hashes: readonly string[]): Span[] {
  if (hashes.length === 0) return [plain("none")];
  const { shown, more } = capList(hashes, SUMMARY_HASHES_MAX);
  const spans: Span[] = [];
  shown.forEach((hash, i) => {
    if (i > 0) spans.push(plain(", "));
    spans.push(txSpan(explorerTxUrl, hash));
  });
  if (more > 0) spans.push(plain(` ${moreLine(more)}`));
  return spans;
}

function activationSpans(explorerTxUrl: string, item: OrchestratorStatusItem): Span[] {
  const spans: Span[] = [plain(item.activation.status ?? "unknown")];
  if (item.activation.hash) spans.push(plain(" "), txSpan(explorerTxUrl, item.activation.hash));
  return spans;
}

function bandwidthText(item: OrchestratorStatusItem): string {
  const { status, skipReason, amount, period } = item.bandwidth;
  if (skipReason) return `${status ?? "skipped"} (${skipReason})`;
  if (status === "done" && amount !== null) return `done (${formatCount(amount)} for ${period ?? "?"})`;
  return status ?? "unknown";
}

function itemBlocks(explorerTxUrl: string, item: OrchestratorStatusItem): Block[] {
  const { energy } = item;
  return [
    text(code(item.receiveAddress), `: ${item.status}`),
    fields(
      ["Energy", `${formatCount(energy.delegated)} of ${formatCount(energy.requested)} delegated`],
      ["Energy orders", `${energy.chunks.done} of ${energy.chunks.total} done`],
      ["Hashes", hashSpans(explorerTxUrl, energy.hashes)],
      ["Activation", activationSpans(explorerTxUrl, item)],
      ["Bandwidth", bandwidthText(item)],
    ),
  ];
}

/** Counts like "1 completed, 1 partial". */
function countsText(status: OrchestratorStatus): string {
  const counts = new Map<string, number>();
  for (const item of status.data.items) counts.set(item.status, (counts.get(item.status) ?? 0) + 1);
  return [...counts.entries()].map(([s, n]) => `${n} ${s}`).join(", ");
}

export function renderOrchestratorSummary(status: OrchestratorStatus, explorerTxUrl: string): Reply {
  const { data } = status;
  const delivered = data.items.every((i) => i.status === "completed");
  const title = delivered ? "Orchestrator order delivered" : "Orchestrator order finished";
  const blocks: Block[] = [
    header(title),
    text(`Request ${data.requestId}: ${countsText(status)}.`),
    ...data.items.flatMap((item) => [...itemBlocks(explorerTxUrl, item)]),
    context(
      `Key ${data.idempotencyKey}. Only what was delivered (energy orders, activation, bandwidth) was charged.`,
    ),
  ];
  return publicReply(`${title}: request ${data.requestId}, ${countsText(status)}`, blocks);
}
