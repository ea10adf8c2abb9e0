import Big from "big.js";
import type { Userinfo } from "../../service/account.js";
import { formatAge, formatDecimal } from "../format.js";
import { formatCount } from "../parse/echo.js";
import { context, fields, header, publicReply, type Reply, text } from "../reply.js";

/**
 * The account's balance and usage from `GET /apiv2/userinfo`. The service sends numbers; each is
 * turned into its decimal string once and any product (balance in USD) is done with big.js.
 */
export interface BalanceView {
  info: Userinfo;
  /** When the bot read it from the service (ms since the epoch). */
  fetchedAt: number;
  now: number;
  /** Set when this is an older copy because a fresh read was not possible right now. */
  stale?: {
    reason: "rate_limit" | "error";
    line?: string /** Until the next read slot frees. */;
    waitMs?: number;
  };
}

/** A JSON number as an exact decimal string ("1e-7" → "0.0000001"), grouped for reading. */
const decimal = (n: number): string => formatDecimal(new Big(n).toFixed());
const trx = (n: number): string => `${decimal(n)} TRX`;
/** Dollars keep their cents: "$11.70", "$1,234.05". */
function usd(amount: Big): string {
  const [whole = "0", cents = "00"] = amount.toFixed(2).split(".");
  return `$${formatDecimal(whole)}.${cents}`;
}

export function renderBalance(view: BalanceView): Reply {
  const { stats, network_info: network } = view.info;
  const trxPrice = new Big(network.trx_price);
  const balanceUsd = new Big(stats.balance).times(trxPrice);
  const blocks = [
    header("Account balance"),
    fields(
      ["Balance", `${trx(stats.balance)} (≈ ${usd(balanceUsd)})`],
      ["Delegations", formatCount(stats.total_delegations)],
      ["Energy delegated", formatCount(stats.total_energy_delegated)],
      ["TRX spent", trx(stats.total_trx_spent)],
      ["Deposits", trx(stats.total_deposit)],
      ["Saved", `${decimal(stats.save_by_netts_percent)}% · ${usd(new Big(stats.save_in_dollars))}`],
      ["Average rate", `${decimal(stats.avg_rate_sun_energy)} SUN/energy`],
      ["TRX price", `$${decimal(network.trx_price)}`],
    ),
  ];
  const age = formatAge(view.now - view.fetchedAt);
  if (view.stale) blocks.push(text(staleLine(view.stale, age)));
  blocks.push(context(`Service time ${view.info.timestamp} UTC · read ${age} ago`));
  return publicReply(`Balance ${trx(stats.balance)}`, blocks);
}

function staleLine(stale: NonNullable<BalanceView["stale"]>, age: string): string {
  if (stale.reason === "rate_limit") {
    const when =
      stale.waitMs === undefined ? "shortly" : `in ${Math.max(1, Math.ceil(stale.waitMs / 1000))} s`;
    return `This copy is ${age} old: the service allows 6 account reads a minute, so a fresh one is still on its way; ask again ${when}.`;
  }
  const line = stale.line ?? "the service could not be read just now.";
  return `This copy is ${age} old: ${line.charAt(0).toLowerCase()}${line.slice(1)}`;
}
