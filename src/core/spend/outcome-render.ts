import { type Balance, balanceCovers } from "../balance/balance-cache.js";
import { formatAge, formatAmount } from "../format.js";
import { plain, publicReply, type Reply, type Span, text } from "../reply.js";

/** The outcome pieces every money feature renders the same way. */

/** A one-line public outcome that replaces the quote (failures after Confirm). */
export function outcomeLine(line: string): Reply {
  return publicReply(line, [text(line)]);
}

/**
 * "500 TRX, covers it" / "≈ 480.2 TRX, read 40 s ago, covers it" (the last reading minus this
 * bot's spends since) / "1 TRX, does NOT cover it" / "unknown (…)".
 */
export function balanceSpans(balance: Balance, costTrx: string): Span[] {
  if (!balance.known) return [plain(`unknown (${balance.reason.replace(/\.$/, "")})`)];
  const covers = balanceCovers(balance, costTrx);
  const amount = balance.estimated
    ? `≈ ${formatAmount(balance.balanceTrx)}, read ${formatAge(balance.ageMs ?? 0)} ago`
    : formatAmount(balance.balanceTrx);
  return [plain(`${amount}, ${covers ? "covers it" : "does NOT cover it"}`)];
}
