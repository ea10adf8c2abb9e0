import type Big from "big.js";
import { botSpentLast24h, hoursLeft, rateOf, readSamples, type SpendRate } from "../activity/rate.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount, formatDecimal } from "../format.js";
import { type Block, code, context, fields, header, publicReply, type Reply, text } from "../reply.js";

/** Runway figures as people read them. */
const formatRate = (rate: SpendRate): string => `${formatDecimal(rate.trxPerHour.toFixed(2))} TRX/h`;

export function formatHours(hours: Big | undefined): string {
  if (hours === undefined) return "no spending in the last 24 h";
  if (hours.gte(48)) {
    return `about ${formatDecimal(hours.toFixed(0))} hours (${formatDecimal(hours.div(24).toFixed(1))} days)`;
  }
  return `about ${formatDecimal(hours.toFixed(1))} hours`;
}

/** How the rate was found, in one line: the alert and `balance` both say it. */
function rateBasis(rate: SpendRate): string {
  const bot = `the bot spent ${formatAmount(rate.botLast24hTrx.toFixed())} in the last 24 h`;
  if (!rate.service)
    return `Spend rate: ${bot} (the account's own total is compared once the bot has watched it for 30 minutes).`;
  const hours = formatDecimal((rate.service.windowMs / 3_600_000).toFixed(1));
  return `Spend rate: the larger of ${bot} and the account's total spent rising ${formatAmount(rate.service.spentTrx.toFixed())} over the last ${hours} h (spends outside the bot included).`;
}

export interface RunwayView {
  balanceTrx: string;
  rate: SpendRate;
  hours: Big | undefined;
  depositAddress?: string;
  reasons: string[];
}

export function renderRunwayAlert(view: RunwayView): Reply {
  const summary = `Balance running low: ${formatAmount(view.balanceTrx)}, ${formatHours(view.hours)} left`;
  return publicReply(summary, [
    header("Balance running low"),
    ...view.reasons.map((r) => text(r)),
    fields(
      ["Balance", formatAmount(view.balanceTrx)],
      ["Spend rate", formatRate(view.rate)],
      ["Hours left", formatHours(view.hours)],
      ["Top up", view.depositAddress ? code(view.depositAddress) : "the deposit address shown by balance"],
    ),
    context(rateBasis(view.rate)),
  ]);
}

export function renderRunwayRecovered(view: RunwayView): Reply {
  const line = `Balance back above the alert levels: ${formatAmount(view.balanceTrx)}, ${formatHours(view.hours)} at ${formatRate(view.rate)}.`;
  return publicReply(line, [text(line), context(rateBasis(view.rate))]);
}

/** The runway field `balance` adds, from what the runway keeps (no extra service read). */
async function runwayBlocks(deps: Pick<CoreDeps, "store" | "now">, balanceTrx: string): Promise<Block[]> {
  const rate = rateOf(await botSpentLast24h(deps, deps.now()), await readSamples(deps.store));
  const hours = hoursLeft(balanceTrx, rate);
  return [fields(["Runway", `${formatHours(hours)} at ${formatRate(rate)}`]), context(rateBasis(rate))];
}

/** `balance`'s reply with the runway before its last line (the read time). */
export async function withRunway(
  deps: Pick<CoreDeps, "store" | "now">,
  reply: Reply,
  balance: number,
): Promise<Reply> {
  const blocks = await runwayBlocks(deps, String(balance));
  const last = reply.blocks.length - 1;
  return { ...reply, blocks: [...reply.blocks.slice(0, last), ...blocks, ...reply.blocks.slice(last)] };
}
