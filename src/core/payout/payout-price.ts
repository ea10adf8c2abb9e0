import Big from "big.js";
import { costTrx, currentPeriod, energyPriceSun, type PriceList, usdOf } from "../../service/pricing.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import { getPriceList } from "../pricing/price-list.js";
import { chunkSizes, ROUTE_SERVICE } from "../pricing/quote.js";
import type { PayoutItem } from "./payout-plan.js";

/**
 * A run's price from the live list: every address is one orchestrator item, whose energy orders
 * are 1-hour rentals (amounts above 1,000,000 split into even chunks), each priced at the tier of
 * the current energy_1h period that matches its size, as the single-address quote prices them.
 */
export interface PayoutPrice {
  periodLabel: string;
  energy: number;
  /** Energy orders the orchestrator will place (chunks). */
  orders: number;
  costTrx: string;
  costUsd: string;
  /** Cost of each item, in the order of the items. */
  itemTrx: string[];
}

export const PAYOUT_PRICE_SERVICE = ROUTE_SERVICE.orchestrator;
const SERVICE = PAYOUT_PRICE_SERVICE;

export function pricePayout(list: PriceList, items: readonly Pick<PayoutItem, "amount">[]): PayoutPrice {
  const service = list.data.services[SERVICE];
  if (!service) {
    throw new UserError(
      `The price list has no ${SERVICE} prices right now; try again later. Nothing was ordered.`,
    );
  }
  const itemTrx: string[] = [];
  let orders = 0;
  let total = new Big(0);
  for (const item of items) {
    let cost = new Big(0);
    for (const size of chunkSizes(item.amount)) {
      const price = energyPriceSun(service, size.amount);
      if (price === undefined) {
        throw new UserError(
          `The price list names no current ${SERVICE} period; try again in a minute. Nothing was ordered.`,
        );
      }
      cost = cost.plus(new Big(costTrx(price, size.amount)).times(size.count));
      orders += size.count;
    }
    itemTrx.push(cost.toFixed());
    total = total.plus(cost);
  }
  return {
    periodLabel: currentPeriod(service)?.label ?? service.current_period,
    energy: items.reduce((n, i) => n + i.amount, 0),
    orders,
    costTrx: total.toFixed(),
    costUsd: usdOf(total.toFixed(), list.data.trx_rate_usd),
    itemTrx,
  };
}

export async function quotePayout(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
  items: readonly PayoutItem[],
  reads?: StoreReads,
): Promise<PayoutPrice> {
  return pricePayout(await getPriceList(deps, [SERVICE], reads), items);
}
