import type { Balance } from "../balance/balance-cache.js";
import { formatAmount, plural, shortAddress } from "../format.js";
import { formatCount } from "../parse/echo.js";
import {
  type Block,
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
import { describeOptions, type PayoutOptions } from "./payout-options.js";
import type { LeftOut, PayoutItem, PayoutPlan } from "./payout-plan.js";
import type { PayoutPrice } from "./payout-price.js";

/**
 * The quote of a payout run: one message with the addresses to order, energy and TRX in all, the
 * balance check and every row left out with its reason, grouped by reason so a hundred of them
 * still fit one message (Slack: 50 blocks, 3000 characters a section; Telegram: 4096 characters).
 */
export const SECTION_MAX_CHARS = 2_900;
/** What the left-out list may take of one message, leaving room for the rest of the quote. */
export const LEFT_OUT_MAX_CHARS = 2_400;

/** Rows grouped by reason: "Duplicate: line 5 (of line 2), line 9 (of line 2)". */
export function leftOutLines(leftOut: readonly LeftOut[]): string[] {
  const groups = new Map<string, string[]>();
  for (const entry of leftOut) {
    const detail =
      entry.detail === undefined
        ? ""
        : ` (${entry.detail.length > 20 ? shortAddress(entry.detail, 6, 4) : entry.detail})`;
    groups.set(entry.reason, [...(groups.get(entry.reason) ?? []), `${entry.where}${detail}`]);
  }
  return [...groups.entries()].map(
    ([reason, entries]) => `${reason.charAt(0).toUpperCase()}${reason.slice(1)}: ${entries.join(", ")}`,
  );
}

/** Lines packed into text blocks of at most SECTION_MAX_CHARS, cut with "… and N more" past `budget`. */
export function packLines(lines: readonly string[], budget: number): Block[] {
  const blocks: Block[] = [];
  let current = "";
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const room = Math.min(SECTION_MAX_CHARS - current.length - 1, budget - used);
    if (line.length > room) {
      const cut = line.slice(0, Math.max(0, room - 40)).replace(/,[^,]*$/, "");
      const rest = lines.length - i - 1;
      const tail = `${cut}… (list cut to fit the message${rest > 0 ? `; ${rest} more reason${rest > 1 ? "s" : ""}` : ""})`;
      current = current === "" ? tail : `${current}\n${tail}`;
      break;
    }
    current = current === "" ? line : `${current}\n${line}`;
    used += line.length + 1;
    if (current.length > SECTION_MAX_CHARS - 200) {
      blocks.push(text(current));
      current = "";
    }
  }
  if (current !== "") blocks.push(text(current));
  return blocks;
}

/** Up to this many addresses, the quote lists each with its amount; beyond, the distinct amounts. */
const QUOTE_LISTED_MAX = 10;

/**
 * What each address gets: every address with its amount (at most 10), or the distinct amounts with
 * their counts, the most common first (`65,000 × 98; 131,000 × 2`), so a hundred still fit.
 */
function amountsBlock(items: readonly Pick<PayoutItem, "address" | "amount">[]): Block {
  if (items.length <= QUOTE_LISTED_MAX) {
    const spans: Span[] = items.flatMap((item, i) => [
      plain(i === 0 ? "Each address:\n" : "\n"),
      code(item.address),
      plain(` ${formatCount(item.amount)}`),
    ]);
    return text(...spans);
  }
  const counts = new Map<number, number>();
  for (const { amount } of items) counts.set(amount, (counts.get(amount) ?? 0) + 1);
  const groups = [...counts.entries()].sort(([a, n], [b, m]) => m - n || a - b);
  return text(
    `Amounts: ${groups.map(([amount, n]) => `${formatCount(amount)} × ${formatCount(n)}`).join("; ")}`,
  );
}

export interface PayoutQuoteView {
  plan: PayoutPlan;
  price: PayoutPrice;
  balance: Balance;
  options: PayoutOptions;
  tokens?: { confirm: string; cancel: string };
  /** Shown instead of the buttons. */
  refusal?: string;
  /** The activation fees the caps hold beside the cost (addresses that may not be active yet). */
  activationTrx?: string;
}

const activationText = (feeTrx: string | undefined): string =>
  feeTrx === undefined ? "" : ` ${activationNote(feeTrx).replace("if the address is", "if addresses are")}`;

export function renderPayoutQuote(view: PayoutQuoteView): Reply {
  const { plan, price } = view;
  const count = plan.items.length;
  const blocks: Block[] = [
    header("Payout run quote"),
    fields(
      [
        "Addresses",
        `${formatCount(count)} to order${plan.leftOut.length > 0 ? `, ${formatCount(plan.leftOut.length)} left out` : ""}`,
      ],
      [
        "Energy",
        `${formatCount(price.energy)} in all (1 hour, through the orchestrator, ${plural(price.orders, "energy order", "energy orders")})`,
      ],
      ["Period", price.periodLabel],
      ["Cost", `${formatAmount(price.costTrx)} (≈ $${price.costUsd})${activationText(view.activationTrx)}`],
      ["Balance", balanceSpans(view.balance, price.costTrx)],
      ["Deny list", `${formatCount(count)} checked in one batch, clean or allowed`],
      ["Options", describeOptions(view.options)],
    ),
    amountsBlock(plan.items),
  ];
  if (plan.leftOut.length > 0) {
    blocks.push(text(`Left out (${formatCount(plan.leftOut.length)}), not ordered:`));
    blocks.push(...packLines(leftOutLines(plan.leftOut), LEFT_OUT_MAX_CHARS));
  }
  for (const warning of plan.warnings.slice(0, 3)) blocks.push(text(`Warning: ${warning}`));
  blocks.push(
    context(
      "One orchestrator order for every address. Nothing is charged at acceptance; each energy order is charged as it is delivered, with activation and bandwidth where an address needs them.",
    ),
  );
  if (view.refusal !== undefined) blocks.push(text(view.refusal));
  if (view.tokens) {
    blocks.push(
      buttons(
        { label: `Confirm ${formatAmount(price.costTrx)}`, token: view.tokens.confirm, style: "primary" },
        { label: "Cancel", token: view.tokens.cancel },
      ),
    );
    blocks.push(context("Buttons last 5 minutes; an operator can confirm."));
  }
  const summary = `Payout run quote: ${formatCount(count)} addresses, ${formatCount(price.energy)} energy for ${formatAmount(price.costTrx)}`;
  return view.tokens ? publicReply(summary, blocks) : { summary, blocks, visibility: "private" };
}

/** Nothing left to order: the left-out rows and why, for the one who typed it. */
export function renderNothingToOrder(plan: PayoutPlan): Reply {
  const line = `Nothing to order: every row of the run was left out (${formatCount(plan.leftOut.length)}). Nothing was ordered.`;
  return {
    summary: line,
    blocks: [text(line), ...packLines(leftOutLines(plan.leftOut), LEFT_OUT_MAX_CHARS)],
    visibility: "private",
  };
}

/**
 * The run quoted again at Confirm: the price rose, or an address is newly on the deny list (left
 * out, listed with its reason): the new total and fresh buttons.
 */
export function renderRequote(view: {
  line: string;
  price: PayoutPrice;
  addresses: number;
  /** Left out at Confirm. */
  dropped: readonly { address: string; reason: string }[];
  tokens: { confirm: string; cancel: string };
}): Reply {
  const { price } = view;
  const dropped: LeftOut[] = view.dropped.map((d) => ({
    where: "at Confirm",
    address: d.address,
    reason: d.reason,
    detail: d.address,
  }));
  const leftOut =
    dropped.length === 0
      ? []
      : [
          text(`Left out (${formatCount(dropped.length)}), not ordered:`),
          ...packLines(leftOutLines(dropped), LEFT_OUT_MAX_CHARS),
        ];
  return publicReply(view.line, [
    header(dropped.length === 0 ? "Payout run quote (price moved)" : "Payout run quote (addresses left out)"),
    text(view.line),
    fields(
      ["Addresses", formatCount(view.addresses)],
      ["Energy", formatCount(price.energy)],
      ["Period", price.periodLabel],
      ["Cost", `${formatAmount(price.costTrx)} (≈ $${price.costUsd})`],
    ),
    ...leftOut,
    buttons(
      { label: `Confirm ${formatAmount(price.costTrx)}`, token: view.tokens.confirm, style: "primary" },
      { label: "Cancel", token: view.tokens.cancel },
    ),
  ]);
}
