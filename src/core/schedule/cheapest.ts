import Big from "big.js";
import { costTrx, type EnergyPeriod, type PeriodicService, type PriceList } from "../../service/pricing.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount } from "../format.js";
import type { Actor, ConversationRef } from "../invocation.js";
import { formatCount } from "../parse/echo.js";
import { getPriceList } from "../pricing/price-list.js";
import { chunkSizes, type EnergyQuote } from "../pricing/quote.js";
import { buttons, code, context, fields, header, publicReply, type Reply, text } from "../reply.js";
import type { AnyDefinition } from "../spend/definition.js";
import { offerQuote } from "../spend/offer-quote.js";
import { clockText, whenText } from "./recurrence.js";
import { SCHEDULE_CONFIRM_KIND, type ScheduleConfirmPayload } from "./schedule-payload.js";

/**
 * `energy <address> <amount> cheapest`: the price now against the cheapest period of the next 24
 * hours, read from the price list (its periods, windows and tiers as the service publishes them;
 * a window whose start is after its end crosses midnight). A later, cheaper period is offered as
 * a one-off standing order at its start plus a minute, with `max` set to that period's price.
 */
const DAY_MS = 24 * 60 * 60_000;
/** A margin after the period starts, so the run is priced in it. */
const START_MARGIN_MS = 60_000;

export interface CheaperLater {
  label: string;
  /** When the period starts next (ms). */
  startsAt: number;
  /** When the one-off standing order runs: the start plus the margin. */
  runAt: number;
  /** The highest unit price of the order's chunks in that period: the standing order's max. */
  maxSun: number;
  costTrx: string;
  savesTrx: string;
}

const minutesOf = (hhmm: string): number | undefined => {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
};

/** The unit price of `amount` in `period`: its matching tier, else its price. */
function unitPrice(period: EnergyPeriod, amount: number): number {
  const tier = period.tiers?.find(
    (t) => amount >= t.min_energy && (t.max_energy === null || amount <= t.max_energy),
  );
  return tier?.price ?? period.price;
}

/** The next start of a period's daily window after `now` (within 24 hours). */
function nextStart(period: EnergyPeriod, now: number): number | undefined {
  const start = minutesOf(period.start);
  if (start === undefined) return undefined;
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  let at = midnight + (start % 1440) * 60_000;
  if (at <= now) at += DAY_MS;
  return at;
}

/** The cheapest period of the next 24 hours when it is cheaper than now, else undefined. */
export function cheaperLater(
  service: PeriodicService,
  quote: EnergyQuote,
  now: number,
): CheaperLater | undefined {
  const sizes = quote.route === "order5m" ? [{ amount: quote.amount, count: 1 }] : chunkSizes(quote.amount);
  let best: CheaperLater | undefined;
  for (const period of service.periods) {
    if (period.is_current || period.id === service.current_period) continue;
    const startsAt = nextStart(period, now);
    if (startsAt === undefined || startsAt - now > DAY_MS) continue;
    const prices = sizes.map((s) => unitPrice(period, s.amount));
    const cost = sizes.reduce(
      (sum, s, i) => sum.plus(new Big(costTrx(prices[i] ?? 0, s.amount)).times(s.count)),
      new Big(0),
    );
    const saves = new Big(quote.costTrx).minus(cost);
    if (saves.lte(0)) continue;
    if (best && !(cost.lt(best.costTrx) || (cost.eq(best.costTrx) && startsAt < best.startsAt))) continue;
    best = {
      label: period.label,
      startsAt,
      runAt: startsAt + START_MARGIN_MS,
      maxSun: Math.max(...prices),
      costTrx: cost.toFixed(),
      savesTrx: saves.toFixed(),
    };
  }
  return best;
}

/** The cheaper later period for this quote, from the same (cached) price list the quote used. */
export async function findCheaperLater(
  deps: Pick<CoreDeps, "service" | "store" | "logger" | "now">,
  quote: EnergyQuote,
): Promise<CheaperLater | undefined> {
  const list: PriceList = await getPriceList(deps, [quote.service]);
  const service = list.data.services[quote.service];
  return service ? cheaperLater(service, quote, deps.now()) : undefined;
}

export const nowCheapestLine = (quote: EnergyQuote): string =>
  `Now (${quote.periodLabel}, ${quote.unitPriceSun} SUN per energy) is the cheapest period of the next 24 hours: ordering now costs the least.`;

/**
 * The offer: **Order now** (the energy spend's own Confirm, through the pipeline's quote) or
 * **Schedule at HH:MM (saves X TRX)** beside it in the same once-only group.
 */
export async function cheapestOffer(
  deps: Pick<CoreDeps, "store" | "now" | "logger" | "spendLifecycle">,
  input: {
    quote: EnergyQuote;
    later: CheaperLater;
    /** The energy spend and its payload, from the energy command. */
    order: { def: AnyDefinition; payload: unknown };
    conversation: ConversationRef;
    actor: Actor;
    denyList: string;
  },
): Promise<Reply> {
  const { quote, later } = input;
  const at = clockText(Math.floor((later.runAt % DAY_MS) / 60_000));
  const schedule: ScheduleConfirmPayload = {
    address: quote.address,
    amount: quote.amount,
    atMin: Math.floor((later.runAt % DAY_MS) / 60_000),
    repeat: { kind: "once", at: later.runAt },
    maxSun: later.maxSun,
  };
  const { tokens } = await offerQuote(
    deps,
    { conversation: input.conversation, actor: input.actor },
    input.order.def,
    input.order.payload,
    { alongside: [{ kind: SCHEDULE_CONFIRM_KIND, payload: schedule, role: "operator" }] },
  );
  const saves = formatAmount(later.savesTrx);
  const summary = `Energy quote: ${formatAmount(quote.costTrx)} now, ${formatAmount(later.costTrx)} at ${at} UTC (saves ${saves})`;
  return publicReply(summary, [
    header("Energy quote: now or the cheapest period"),
    fields(
      ["Address", code(quote.address)],
      ["Energy", formatCount(quote.amount)],
      ["Now", `${formatAmount(quote.costTrx)} (${quote.periodLabel}, ${quote.unitPriceSun} SUN per energy)`],
      [
        "Cheapest in 24 h",
        `${formatAmount(later.costTrx)} (${later.label}, ${later.maxSun} SUN per energy, from ${whenText(later.startsAt)})`,
      ],
      ["Saving", saves],
      ["Deny list", input.denyList],
    ),
    text(
      `Schedule at ${at} creates a one-off standing order for ${whenText(later.runAt)} with max ${later.maxSun} SUN per energy: it re-reads the price list, the deny list and your caps then, and is skipped if the price is higher.`,
    ),
    buttons(
      { label: `Order now ${formatAmount(quote.costTrx)}`, token: tokens.confirm, style: "primary" },
      { label: `Schedule at ${at} (saves ${saves})`, token: tokens.alongside[0] ?? "" },
      { label: "Cancel", token: tokens.cancel },
    ),
    context("Buttons last 5 minutes; an operator can confirm."),
  ]);
}
