import type { CommandContext, CommandDefinition } from "../command.js";
import { OPTION_WORDS, readPayoutInput, runPayout } from "../payout/index.js";
import { energyServiceFor, quoteEnergy } from "../pricing/quote.js";
import { errorReply, type Reply } from "../reply.js";
import { cheapestOffer, findCheaperLater, nowCheapestLine } from "../schedule/index.js";
import { checkAtQuote } from "../spend/check-at-quote.js";
import { offerQuote } from "../spend/offer-quote.js";
import { denyListText } from "../spend/preflight.js";
import { parseEnergyArgs } from "./energy-args.js";
import type { EnergyConfirmPayload } from "./energy-payload.js";
import { renderEnergyQuote } from "./energy-render.js";
import { energyOrder } from "./energy-spend.js";

/**
 * `energy <address> <amount>`: parse → deny-list check → quote from the live price list →
 * spending caps → the quote with Confirm / Cancel. Nothing is spent before Confirm.
 */
export const energyCommand: CommandDefinition = {
  verb: "energy",
  role: "operator",
  summary: "rent energy for 5 minutes, or a payout run (2–100 addresses)",
  usage: "energy <address> <amount>",
  details: `A payout run: energy <amount> <address> <address> …, or energy then one "<address> <amount>" per line, or a CSV file (address,amount) shared with the message energy (console: energy @file.csv); options: ${OPTION_WORDS}. With cheapest: the quote now beside the cheapest period of the next 24 hours.`,
  example: "energy TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b 65k",
  run: runEnergy,
};

async function runEnergy(ctx: CommandContext): Promise<Reply> {
  const payout = readPayoutInput(ctx.invocation.text, ctx.invocation.file);
  if (payout !== undefined) return payout.ok ? runPayout(ctx, payout.value) : errorReply(payout.error);
  // `… cheapest`: the price now against the cheapest period of the next 24 hours (src/core/schedule/).
  const cheapest = ctx.args.length === 3 && ctx.args[2]?.toLowerCase() === "cheapest";
  const parsed = parseEnergyArgs(cheapest ? ctx.args.slice(0, 2) : ctx.args);
  if (!parsed.ok) return errorReply(parsed.error);
  const { address, amount } = parsed.value;
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const checked = await checkAtQuote(deps, {
    actor,
    word: energyOrder.word,
    preflight: address,
    price: (reads) => quoteEnergy(deps, address, amount, reads),
    prices: [energyServiceFor(amount)],
    costOf: (q) => q.costTrx,
    activation: [address],
  });
  if (!checked.ok) return errorReply(checked.line);
  const { quote, activationTrx } = checked;
  const view: { notice?: string } & Omit<Parameters<typeof renderEnergyQuote>[0], "notice"> = {
    quote,
    balance: checked.balance,
    denyList: denyListText(checked.verdict),
    warnings: checked.warnings,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  if (!checked.covered) {
    return renderEnergyQuote({
      ...view,
      refusal:
        "The balance does not cover this order, so no Confirm button is offered: top up the deposit address, then run the command again.",
    });
  }
  const payload: EnergyConfirmPayload = {
    address,
    amount,
    route: quote.route,
    quoteTrx: quote.costTrx,
    unitPriceSun: quote.unitPriceSun,
    periodLabel: quote.periodLabel,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  if (cheapest) {
    const later = await findCheaperLater(deps, quote);
    if (later)
      return cheapestOffer(deps, {
        quote,
        later,
        order: { def: energyOrder, payload },
        conversation,
        actor,
        denyList: view.denyList,
      });
    view.notice = nowCheapestLine(quote);
  }
  const { tokens } = await offerQuote(deps, { conversation, actor }, energyOrder, payload);
  return renderEnergyQuote({ ...view, tokens });
}
