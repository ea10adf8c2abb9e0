import { formatCount } from "../parse/echo.js";
import { heldTrx } from "../spend/activation-bound.js";
import { requesterField } from "../spend/confirmed.js";
import { defineSpend } from "../spend/definition.js";
import { placePayout } from "./confirm-payout.js";
import {
  PAYOUT_CONFIRM_KIND,
  type PayoutConfirmPayload,
  payoutConfirmPayloadSchema,
} from "./payout-payload.js";
import { PAYOUT_PRICE_SERVICE, type PayoutPrice, pricePayout } from "./payout-price.js";
import { renderRequote } from "./payout-render.js";

/** The confirmed run at the live quote: what is ordered, held against the caps and recorded. */
const livePayout = (p: PayoutConfirmPayload, quote: PayoutPrice): PayoutConfirmPayload => ({
  ...p,
  quoteTrx: quote.costTrx,
  periodLabel: quote.periodLabel,
  itemTrx: quote.itemTrx,
});

/**
 * A payout run (2–100 addresses, one orchestrator order): every address re-checked in one deny-list
 * batch call at Confirm. A newly blocked address is left out and the rest quoted again (`without`).
 */
export const payoutRun = defineSpend<PayoutConfirmPayload, PayoutPrice>({
  name: "payout",
  confirmKind: PAYOUT_CONFIRM_KIND,
  schema: payoutConfirmPayloadSchema,
  word: "ordered",
  quoteTrx: (p) => p.quoteTrx,
  live: (_deps, p) => ({
    quoted: { costTrx: p.quoteTrx, periodLabel: p.periodLabel },
    addresses: p.items.map((i) => i.address),
    services: [PAYOUT_PRICE_SERVICE],
    requote: (list) => {
      const price = pricePayout(list, p.items);
      return p.activationTrx === undefined
        ? price
        : { ...price, holdTrx: heldTrx(price.costTrx, p.activationTrx) };
    },
  }),
  atQuote: livePayout,
  ledgerKind: "payout",
  place: placePayout,
  audit: (who, p) => ({
    actor: who.actor,
    conversation: who.conversation,
    verb: "energy",
    amount: String(p.energy),
    quoteTrx: p.quoteTrx,
    addresses: p.items.map((i) => i.address),
    ...requesterField(who),
  }),
  describe: (run) =>
    `a payout run of ${formatCount(run.energy)} energy to ${formatCount(run.items.length)} addresses (1 hour, one orchestrator order)`,
  requoted: async (_deps, view) =>
    renderRequote({
      line: view.notice,
      price: view.quote,
      addresses: view.payload.items.length,
      dropped: view.payload.dropped ?? [],
      tokens: view.tokens,
    }),
  without(p, blocked) {
    const out = new Map(blocked.map((v) => [v.address, `on the deny list (${v.category})`]));
    const items = p.items.filter((i) => !out.has(i.address));
    if (items.length === 0 || items.length === p.items.length) return undefined;
    const gone = p.items.filter((i) => out.has(i.address));
    const dropped = gone.map((i) => ({
      address: i.address,
      reason: out.get(i.address) ?? "on the deny list",
    }));
    const { itemTrx: _priced, ...rest } = p;
    return {
      ...rest,
      items,
      energy: items.reduce((n, i) => n + i.amount, 0),
      leftOut: p.leftOut + gone.length,
      dropped: [...(p.dropped ?? []), ...dropped],
    };
  },
});
