import type { ScreeningEntity, ScreeningOrder } from "../../service/screening.js";
import {
  capList,
  clip,
  formatAmount,
  formatEpoch,
  formatScore,
  formatShare,
  formatTime,
  isZeroDecimal,
  moreLine,
  shareValue,
  shortAddress,
} from "../format.js";
import {
  type Block,
  bold,
  code,
  context,
  fields,
  header,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";

/** How many exposure categories, rules and entities a result shows (the rest is counted). */
const SCREENING_LIST_MAX = 5;

export interface ScreeningRenderOptions {
  /**
   * When the same request was first made (epoch ms), if this reply answers a repeat of it: the
   * service returned the order of the first request for the same idempotency key.
   */
  repeatOf?: number;
}

/** The reply for a screening order in any state. */
export function renderScreeningOrder(order: ScreeningOrder, options: ScreeningRenderOptions = {}): Reply {
  const reply = replyFor(order);
  if (options.repeatOf === undefined) return reply;
  const note = context(
    `Same request as at ${formatEpoch(options.repeatOf)}: this is that screening, not a new one and not charged again.`,
  );
  return { ...reply, blocks: [...reply.blocks, note] };
}

function replyFor(order: ScreeningOrder): Reply {
  switch (order.order.status) {
    case "completed":
      return renderCompleted(order);
    case "skipped":
      return renderSkipped(order);
    case "failed":
      return renderFailed(order);
    case "pending":
    case "processing":
      return renderPending(order);
  }
}

/** "Screening A… is still running; the result will be posted here." */
function renderPending(order: ScreeningOrder): Reply {
  const line = `Screening ${order.order.client_order_id} is still running; the result will be posted here.`;
  return publicReply(line, [text(line), requestFields(order), context(billingLine(order))]);
}

function renderCompleted(order: ScreeningOrder): Reply {
  const score = formatScore(order.risk.score, order.risk.scale);
  const level = levelText(order);
  const blocks: Block[] = [
    header(`Screening: ${level}`),
    fields(...requestItems(order), ["Score", score], ["Level", level], ["Sanctions", sanctionsText(order)]),
    ...exposureBlocks(order),
    ...ruleBlocks(order),
    ...entityBlocks(order),
    context(billingLine(order), ` · order ${order.order.client_order_id}`, checkedAt(order)),
  ];
  const scored = order.risk.score === null ? "" : `, score ${score}`;
  const summary = `Screening of ${shortAddress(order.request.address)} on ${order.request.network}: ${level}${scored}`;
  return publicReply(summary, blocks);
}

function renderSkipped(order: ScreeningOrder): Reply {
  const line = `Screening of ${shortAddress(order.request.address)} on ${order.request.network} skipped: the address has no activity — not charged.`;
  return publicReply(line, [
    header("Screening skipped"),
    requestFields(order),
    text("The address has never had blockchain activity, so it was not sent to the provider."),
    context(billingLine(order), ` · order ${order.order.client_order_id}`),
  ]);
}

function renderFailed(order: ScreeningOrder): Reply {
  const why = order.order.error ?? order.order.reason;
  const line = `Screening ${order.order.client_order_id} of ${shortAddress(order.request.address)} failed${why ? ` (${clip(why, 60)})` : ""}.`;
  return publicReply(line, [
    header("Screening failed"),
    text(line),
    requestFields(order),
    context(billingLine(order)),
  ]);
}

function requestItems(order: ScreeningOrder): [string, Span | string][] {
  return [
    ["Address", code(order.request.address)],
    ["Network", order.request.network],
    ["Provider", order.request.provider],
  ];
}

const requestFields = (order: ScreeningOrder): Block => fields(...requestItems(order));

/** The level as the service computed it; "none" (unscored) reads as what a null score means. */
function levelText(order: ScreeningOrder): string {
  const level = order.risk.level;
  if (order.risk.score === null || level === "none") return "no triggers";
  return `${level} risk`;
}

/** Sanctions: the address itself, and the share of funds from/to sanctioned entities. */
function sanctionsText(order: ScreeningOrder): string {
  const sanctions = order.sanctions;
  if (sanctions === null) return "not reported";
  const self = sanctions.self ? "self: SANCTIONED" : "self: no";
  const shares = Object.entries(sanctions.exposure)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .filter(([, share]) => /^\d+(\.\d+)?$/.test(share) && !isZeroDecimal(share))
    .map(([direction, share]) => `${direction} ${formatShare(share)}`);
  const names = order.sanctioned_entities.map((e) => clip(e.name, 40));
  const { shown, more } = capList(names, 3);
  const entities = shown.length > 0 ? ` (${shown.join(", ")}${more > 0 ? `, +${more}` : ""})` : "";
  return `${self}; exposure: ${shares.length > 0 ? shares.join(", ") : "none"}${entities}`;
}

function exposureBlocks(order: ScreeningOrder): Block[] {
  if (order.exposure.length === 0) return [];
  const sorted = [...order.exposure].sort((a, b) =>
    shareValue(b.share_fraction).cmp(shareValue(a.share_fraction)),
  );
  const { shown, more } = capList(sorted, SCREENING_LIST_MAX);
  const lines = shown.map((e) => {
    const hops = e.hops === 0 ? "direct" : `${e.hops} hop${e.hops === 1 ? "" : "s"}`;
    const who = e.entities.length > 0 ? `: ${e.entities.map((x) => clip(x.name, 40)).join(", ")}` : "";
    return `• ${clip(e.category, 40)} ${formatShare(e.share_fraction)} (${clip(e.direction, 20)}, ${hops})${clip(who, 100)}`;
  });
  if (more > 0) lines.push(moreLine(more));
  return [text(bold("Top exposure")), text(lines.join("\n"))];
}

function ruleBlocks(order: ScreeningOrder): Block[] {
  if (order.rules.length === 0) return [];
  const { shown, more } = capList(order.rules, SCREENING_LIST_MAX);
  const lines = shown.map((r) => `• ${clip(r.name, 60)} — ${clip(r.level, 20)}`);
  if (more > 0) lines.push(moreLine(more));
  return [text(bold("Triggered rules")), text(lines.join("\n"))];
}

const entityText = (e: ScreeningEntity): string =>
  `${clip(e.name, 60)} (${clip(e.category, 30)}${e.is_vasp ? ", VASP" : ""})`;

function entityBlocks(order: ScreeningOrder): Block[] {
  const blocks: Block[] = [];
  const primary = order.primary_entity;
  if (primary) blocks.push(text(bold("Primary entity: "), entityText(primary)));
  const others = order.entities.filter((e) => !(primary && e.name === primary.name && e.is_primary));
  if (others.length === 0) return blocks;
  const { shown, more } = capList(others, SCREENING_LIST_MAX);
  const list = shown.map(entityText).join(", ") + (more > 0 ? `, ${moreLine(more)}` : "");
  blocks.push(text(bold("Entities: "), list));
  return blocks;
}

function checkedAt(order: ScreeningOrder): string {
  const at = order.check.checked_at ?? order.order.completed_at;
  return at === null ? "" : ` · checked ${formatTime(at)}`;
}

/** What the screening cost, from the billing block: charged amount, cache hit, skipped, refunded. */
export function billingLine(order: ScreeningOrder): string {
  const { billing } = order;
  if (order.order.status === "skipped") return "Skipped: address has no activity — not charged";
  if (order.order.cache_hit) return "Cache hit — not charged";
  if (billing.charged) {
    const amount = formatAmount(billing.charged_amount, billing.charged_currency);
    const markup = isZeroDecimal(billing.markup_amount)
      ? ""
      : ` (incl. markup ${formatAmount(billing.markup_amount, billing.charged_currency)})`;
    const pending = billing.payment_status === "pending" ? ", payment pending" : "";
    return `Charged ${amount}${markup}${pending}`;
  }
  if (billing.payment_status === "refunded") return "Refunded — not charged";
  return "Not charged";
}
