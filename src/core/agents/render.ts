import { formatAmount } from "../format.js";
import { formatCount } from "../parse/echo.js";
import type { EnergyQuote } from "../pricing/quote.js";
import { buttons, code, context, fields, header, publicReply, type Reply, text } from "../reply.js";
import { activationNote } from "../spend/activation-bound.js";

/** The quote an agent's request posts for a person: who asked, why, and Confirm / Cancel. */
export function renderAgentQuote(view: {
  agent: string;
  reason: string;
  requestId: string;
  quote: EnergyQuote;
  denyList: string;
  warnings: readonly string[];
  tokens: { confirm: string; cancel: string };
  /** The activation fee the caps hold beside the cost (the address may not be active yet). */
  activationTrx?: string;
}): Reply {
  const { quote } = view;
  const activation = view.activationTrx === undefined ? "" : ` ${activationNote(view.activationTrx)}`;
  const rental = quote.route === "order5m" ? "5 minutes (one order)" : "1 hour, through the orchestrator";
  return publicReply(
    `Agent ${view.agent} asks for ${formatCount(quote.amount)} energy to ${quote.address} for ${formatAmount(quote.costTrx)}`,
    [
      header(`Energy request from agent ${view.agent}`),
      text(`Reason given by the agent: "${view.reason}"`),
      fields(
        ["Address", code(quote.address)],
        ["Energy", formatCount(quote.amount)],
        ["Rental", rental],
        ["Period", quote.periodLabel],
        ["Cost", `${formatAmount(quote.costTrx)} (≈ $${quote.costUsd})${activation}`],
        ["Deny list", view.denyList],
        ["Request", code(view.requestId)],
      ),
      ...view.warnings.map((warning) => text(`Warning: ${warning}`)),
      buttons(
        { label: `Confirm ${formatAmount(quote.costTrx)}`, token: view.tokens.confirm, style: "primary" },
        { label: "Cancel", token: view.tokens.cancel },
      ),
      context(
        "An agent never spends: an operator confirms or cancels, under the same price, deny-list, cap and approval rules as any Confirm. Buttons last 5 minutes.",
      ),
    ],
  );
}
