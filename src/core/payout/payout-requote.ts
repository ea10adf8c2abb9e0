import type { CoreDeps } from "../deps.js";
import { payoutConfirmPayloadSchema } from "./payout-payload.js";
import { planPayout } from "./payout-plan.js";
import { pricePayout } from "./payout-price.js";

/**
 * A payout run quoted again for its approver: the deny list read again for every address (one
 * batch call) and the price read from the service (not the bot's cached copy). An address found
 * on the deny list since refuses the run as a whole: the approver approves what was asked.
 */
export async function requotePayout(
  deps: Pick<CoreDeps, "service" | "logger" | "now" | "store">,
  raw: unknown,
) {
  const p = payoutConfirmPayloadSchema.parse(raw);
  const rows = p.items.map((i, n) => ({
    where: `address ${n + 1}`,
    address: i.address,
    amount: String(i.amount),
  }));
  const plan = await planPayout(deps, rows);
  const [out] = plan.leftOut;
  if (out !== undefined) {
    return {
      ok: false as const,
      line: `Not ordered: ${out.address} is ${out.reason} since the quote, so the run was not approved as asked. Run it again without it.`,
      address: out.address,
    };
  }
  const list = await deps.service.pricing.get({ services: ["energy_1h"] });
  const price = pricePayout(list, plan.items);
  return {
    ok: true as const,
    costTrx: price.costTrx,
    payload: { ...p, quoteTrx: price.costTrx, periodLabel: price.periodLabel },
  };
}
