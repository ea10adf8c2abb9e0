import { getBalance } from "../balance/balance-cache.js";
import { formatCount } from "../parse/echo.js";
import { buildEnergyQuote, type EnergyQuote, ROUTE_SERVICE } from "../pricing/quote.js";
import { heldTrx } from "../spend/activation-bound.js";
import { defineSpend } from "../spend/definition.js";
import { denyListText } from "../spend/preflight.js";
import { placeEnergy } from "./confirm-energy.js";
import {
  auditBase,
  ENERGY_CONFIRM_KIND,
  type EnergyConfirmPayload,
  energyConfirmPayloadSchema,
} from "./energy-payload.js";
import { renderEnergyQuote } from "./energy-render.js";

/** The confirmed payload at the live quote: what is ordered and recorded. */
const livePayload = (p: EnergyConfirmPayload, quote: EnergyQuote): EnergyConfirmPayload => ({
  ...p,
  route: quote.route,
  quoteTrx: quote.costTrx,
  unitPriceSun: quote.unitPriceSun,
  periodLabel: quote.periodLabel,
});

/**
 * An energy order for one address (order5m up to 650,000, else one orchestrator order): its
 * payload, live price, placing and lines. The pipeline (src/core/spend/pipeline.ts) does the rest;
 * a standing order's run spends through it too.
 */
export const energyOrder = defineSpend<EnergyConfirmPayload, EnergyQuote>({
  name: "energy",
  confirmKind: ENERGY_CONFIRM_KIND,
  schema: energyConfirmPayloadSchema,
  word: "ordered",
  quoteTrx: (p) => p.quoteTrx,
  live: (_deps, p) => ({
    quoted: { costTrx: p.quoteTrx, periodLabel: p.periodLabel },
    addresses: [p.address],
    services: [ROUTE_SERVICE[p.route]],
    requote: (list) => {
      const quote = buildEnergyQuote(list, p.address, p.amount);
      return p.activationTrx === undefined
        ? quote
        : { ...quote, holdTrx: heldTrx(quote.costTrx, p.activationTrx) };
    },
  }),
  atQuote: livePayload,
  ledgerKind: "energy",
  place: placeEnergy,
  audit: auditBase,
  describe(p) {
    const rental = p.route === "orchestrator" ? "1 hour, through the orchestrator" : "5 minutes";
    return `${formatCount(p.amount)} energy for ${p.address} (${rental})`;
  },
  async requoted(deps, view) {
    const verdict = view.verdicts[0];
    return renderEnergyQuote({
      quote: view.quote,
      balance: await getBalance(deps),
      denyList: verdict ? denyListText(verdict) : "clean (not on any deny list)",
      warnings: [...view.warnings],
      notice: view.notice,
      tokens: view.tokens,
      ...(view.payload.activationTrx !== undefined && { activationTrx: view.payload.activationTrx }),
    });
  },
});
