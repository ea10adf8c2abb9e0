import type { HostInfinityStarted, HostStopped } from "../../service/host-mode.js";
import type { Balance } from "../balance/balance-cache.js";
import { formatAmount, shortAddress } from "../format.js";
import type { HostQuote } from "../pricing/quote.js";
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
import { balanceSpans } from "../spend/outcome-render.js";

/** Shown whenever no callback URL can be registered. */
export const NO_CALLBACK_WARNING =
  "PUBLIC_URL is not set, so no callback URL is registered: the service will delegate and charge each cycle, but the bot will not be told and will post nothing about cycles.";

export interface HostQuoteView {
  address: string;
  quote: HostQuote;
  balance: Balance;
  denyList: string;
  warnings: string[];
  tokens?: { confirm: string; cancel: string };
  refusal?: string;
  /** OPS_DAILY_LIMIT_TRX, when set: the cycles count toward the starter's daily limit. */
  dailyLimitTrx?: string;
  /** A line above the quote: why this quote took the place of the one confirmed (the price rose). */
  notice?: string;
}

/** The quote says that the cycles count toward the daily limit of the person who starts Host Mode. */
function cyclesCapLine(dailyLimitTrx: string | undefined): string {
  return dailyLimitTrx === undefined
    ? "Each cycle counts toward your spending of the UTC day as it is charged (no daily limit is set)."
    : `Each cycle counts toward your daily limit of ${formatAmount(dailyLimitTrx)} (OPS_DAILY_LIMIT_TRX) as it is charged; once it is reached, your other spends are refused until 00:00 UTC, while the cycles go on until host stop.`;
}

function cycleLines(q: HostQuote): string[] {
  const minimum = q.dailyMinimumInForce
    ? `Daily minimum ${formatAmount(q.dailyMinimumTrx)} in infinity mode.`
    : `Daily minimum ${formatAmount(q.dailyMinimumTrx)} in infinity mode from ${q.dailyMinimumFrom}.`;
  return [
    `First delegation ${formatAmount(q.firstCycleTrx)}; then ${formatAmount(q.le65kTrx)} per cycle when the previous transfer used at most 65,000 energy, ${formatAmount(q.gt65kTrx)} when more.`,
    `An idle re-delegation (24 hours without a transfer) or an address without history costs ${formatAmount(q.idleTrx)}.`,
    `${minimum} Cycles are charged as they are delegated, until host stop (or the 2-day idle shutdown).`,
  ];
}

export function renderHostQuote(view: HostQuoteView): Reply {
  const { quote } = view;
  const blocks: Block[] = [
    header("Host Mode (infinity): start?"),
    ...(view.notice === undefined ? [] : [text(view.notice)]),
    fields(
      ["Address", code(view.address)],
      ["First cycle", formatAmount(quote.firstCycleTrx)],
      ["Balance", balanceSpans(view.balance, quote.firstCycleTrx)],
      ["Deny list", view.denyList],
    ),
    text(cycleLines(quote).join(" ")),
    text(cyclesCapLine(view.dailyLimitTrx)),
  ];
  for (const warning of view.warnings) blocks.push(text(`Warning: ${warning}`));
  if (view.refusal !== undefined) blocks.push(text(view.refusal));
  if (view.tokens) {
    blocks.push(
      buttons(
        { label: "Start Host Mode", token: view.tokens.confirm, style: "primary" },
        { label: "Cancel", token: view.tokens.cancel },
      ),
      context("Buttons last 5 minutes; an operator can confirm."),
    );
  }
  const summary = `Host Mode for ${shortAddress(view.address)}: first cycle ${formatAmount(quote.firstCycleTrx)}`;
  return view.tokens ? publicReply(summary, blocks) : { summary, blocks, visibility: "private" };
}

export function renderHostStarted(
  started: HostInfinityStarted,
  options: {
    callback: boolean;
    by: string;
    message: string;
    /** What Time Status said right after the start. */
    check?: string;
    statusToken?: string;
  },
): Reply {
  const blocks: Block[] = [
    header("Host Mode started"),
    fields(
      ["Address", code(started.address)],
      ["Order", code(String(started.order_id))],
      ["Mode", `${started.mode}, ${started.status}`],
    ),
    text(
      options.callback
        ? "Each delegation cycle is charged as it happens; I will post the cycles here."
        : "Each delegation cycle is charged as it happens.",
    ),
  ];
  if (options.check !== undefined) blocks.push(text(options.check));
  if (!options.callback) blocks.push(text(`Warning: ${NO_CALLBACK_WARNING}`));
  if (options.statusToken) blocks.push(buttons({ label: "Status", token: options.statusToken }));
  blocks.push(
    context(`${options.message}. Started by ${options.by}. Stop with: host stop ${started.address}`),
  );
  return publicReply(
    `Host Mode started for ${shortAddress(started.address)} (order ${started.order_id})`,
    blocks,
  );
}

export function renderHostStopped(stopped: HostStopped, by: string): Reply {
  const line = `Host Mode stopped for ${stopped.address}: ${stopped.orders_closed} open order${stopped.orders_closed === 1 ? "" : "s"} closed, now ${stopped.status}.`;
  return publicReply(line, [
    text(line),
    context(`Stopped by ${by}. Nothing more will be charged for this address.`),
  ]);
}
