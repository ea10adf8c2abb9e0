import type { CommandContext } from "../command.js";
import { errorReply, type Reply } from "../reply.js";
import { checkAtQuote } from "../spend/check-at-quote.js";
import { offerQuote } from "../spend/offer-quote.js";
import type { PayoutInput } from "./payout-input.js";
import type { PayoutConfirmPayload } from "./payout-payload.js";
import { PAYOUT_MAX_ADDRESSES, PAYOUT_MIN_ADDRESSES, planPayout } from "./payout-plan.js";
import { PAYOUT_PRICE_SERVICE, quotePayout } from "./payout-price.js";
import { renderNothingToOrder, renderPayoutQuote } from "./payout-render.js";
import { payoutRun } from "./payout-spend.js";

/**
 * A payout run's quote: rows → format checks → the deny list in one batch call → the price of
 * every address from the live list → caps on the run's total → one message with Confirm / Cancel.
 * Nothing is spent before Confirm, and nothing at all when no address is left.
 */
export async function runPayout(ctx: CommandContext, input: PayoutInput): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  if (input.rows.length < PAYOUT_MIN_ADDRESSES) {
    return errorReply(
      `a payout run takes ${PAYOUT_MIN_ADDRESSES} to ${PAYOUT_MAX_ADDRESSES} addresses, got ${input.rows.length}: for one address use energy <address> <amount>`,
    );
  }
  const plan = await planPayout(deps, input.rows);
  if (plan.items.length === 0) return renderNothingToOrder(plan);
  const checked = await checkAtQuote(deps, {
    actor,
    price: (reads) => quotePayout(deps, plan.items, reads),
    prices: [PAYOUT_PRICE_SERVICE],
    costOf: (p) => p.costTrx,
    ...(input.options.activation !== false && { activation: plan.items.map((i) => i.address) }),
  });
  if (!checked.ok) return errorReply(checked.line);
  const { quote: price, balance, activationTrx } = checked;
  const view = {
    plan,
    price,
    balance,
    options: input.options,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  if (!checked.covered) {
    return renderPayoutQuote({
      ...view,
      refusal:
        "The balance does not cover this run, so no Confirm button is offered: top up the deposit address, or order fewer addresses.",
    });
  }
  const payload: PayoutConfirmPayload = {
    items: plan.items.map((i) => ({ address: i.address, amount: i.amount })),
    options: input.options,
    quoteTrx: price.costTrx,
    energy: price.energy,
    periodLabel: price.periodLabel,
    leftOut: plan.leftOut.length,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  const { tokens } = await offerQuote(deps, { conversation, actor }, payoutRun, payload);
  return renderPayoutQuote({ ...view, tokens });
}
