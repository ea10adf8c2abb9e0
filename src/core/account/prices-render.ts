import Big from "big.js";
import {
  type AmlService,
  type BandwidthService,
  type EnergyPeriod,
  energyPriceSun,
  type HostService,
  type PeriodicService,
  type PriceList,
  type PricingServiceName,
  usdOf,
} from "../../service/pricing.js";
import { capList, clip, formatDecimal, formatTime, moreLine } from "../format.js";
import { formatCount } from "../parse/echo.js";
import { SUN_PER_TRX } from "../pricing/trx.js";
import {
  type Block,
  bold,
  code,
  context,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";

/**
 * The price list as chat text. Everything comes from the list itself: periods, tiers, rates,
 * providers, windows, units and titles are iterated as data, never named here. Money stays
 * exact: prices are integers or decimal strings and every product goes through big.js.
 */

/** The sizes people usually rent (one and two USDT transfers): the only numbers this file knows. */
const COMMON_ENERGY_AMOUNTS: readonly number[] = [65_000, 131_000];

const ISO_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

type Services = PriceList["data"]["services"];

/**
 * Every list of the price list is shown up to a cap, then "… and N more": a list with hundreds of
 * periods or tiers would otherwise fill dozens of chat messages (31 on Telegram).
 */
const PRICE_LIST_CAPS = {
  periods: 8,
  tiers: 6,
  rates: 12,
  providers: 12,
  bandwidthTiers: 8,
  tierPeriods: 6,
};

/** The first `max` lines and a "… and N more <noun>" line when some were left out. */
function cappedLines(lines: readonly string[], max: number, noun: string): string[] {
  const { shown, more } = capList(lines, max);
  return more > 0 ? [...shown, `${moreLine(more)} ${noun}`] : shown;
}

const divider = (): Block => ({ type: "divider" });

/** The services a list carries, in the order it sent them. */
export function serviceNames(list: PriceList): PricingServiceName[] {
  const services = list.data.services;
  return (Object.keys(services) as PricingServiceName[]).filter((name) => services[name] !== undefined);
}

/** The reply for `prices [service]`: one section per service name, in the given order. */
export function renderPrices(list: PriceList, names: readonly PricingServiceName[]): Reply {
  const blocks: Block[] = [header("Prices")];
  names.forEach((name, i) => {
    if (i > 0) blocks.push(divider());
    blocks.push(...serviceBlocks(list, name));
  });
  const rate = formatDecimal(String(list.data.trx_rate_usd));
  blocks.push(
    context(`Price list ${clip(list.version, 20)} · ${formatTime(list.timestamp)} · 1 TRX = $${rate}`),
  );
  return publicReply(`Prices: ${names.map(summaryOf(list.data.services)).join("; ")}`, blocks);
}

const summaryOf =
  (services: Services) =>
  (name: PricingServiceName): string => {
    const service = services[name];
    if (service && "periods" in service) {
      const now = service.periods.find((p) => p.is_current);
      return now ? `${name} ${now.label} ${now.price} ${unitLabel(service.unit)}` : name;
    }
    return name;
  };

function serviceBlocks(list: PriceList, name: PricingServiceName): Block[] {
  const services = list.data.services;
  const title = (description: string) => text(bold(clip(description, 60)), plain(" · "), code(name));
  switch (name) {
    case "energy_1h":
    case "energy_5m": {
      const service = services[name];
      return service ? [title(service.description), ...periodicBlocks(service, list)] : [];
    }
    case "host": {
      const service = services.host;
      return service ? [title(service.description), hostBlock(service)] : [];
    }
    case "aml": {
      const service = services.aml;
      return service ? [title(service.description), amlBlock(service)] : [];
    }
    case "bandwidth": {
      const service = services.bandwidth;
      return service ? [title(service.description), ...bandwidthBlocks(service, list)] : [];
    }
  }
}

/** "sun" → "SUN"; other units as the list writes them, upper-cased ("trx" → "TRX"). */
const unitLabel = (unit: string): string => unit.replace(/_per_unit$/, "").toUpperCase();

/** How many of `unit` make one TRX, from `units_meta` (sun: 1 000 000). */
function perTrx(list: PriceList, unit: string): number {
  const meta = list.data.units_meta[unit.replace(/_per_unit$/, "")];
  return meta && meta.base === "trx" && meta.multiplier > 0 ? meta.multiplier : SUN_PER_TRX;
}

/** "06:00–18:00 UTC"; "24:00" stays as the list writes it. */
const windowText = (start: string, end: string): string => `${clip(start, 5)}–${clip(end, 5)} UTC`;

function periodicBlocks(service: PeriodicService, list: PriceList): Block[] {
  const unit = unitLabel(service.unit);
  const { shown, more } = capList(service.periods, PRICE_LIST_CAPS.periods);
  // The current period is always shown, in place of the last one that fits.
  const current = service.periods.find((p) => p.is_current);
  if (current !== undefined && !shown.includes(current)) shown[shown.length - 1] = current;
  const blocks: Block[] = shown.map((period) => periodBlock(period, unit));
  if (more > 0) blocks.push(text(`${moreLine(more)} periods`));
  if (service.periods.length === 0) blocks.push(text("No periods published."));
  blocks.push(costBlock(service, list));
  return blocks;
}

/** One period: its line (bold and marked when current), then one line per tier. */
function periodBlock(period: EnergyPeriod, unit: string): Block {
  const line = `${clip(period.label, 30)} · ${windowText(period.start, period.end)} · ${formatCount(period.price)} ${unit}`;
  const spans: Span[] = period.is_current ? [bold(`▶ ${line}`), plain(" (now)")] : [plain(`• ${line}`)];
  const { shown, more } = capList(period.tiers ?? [], PRICE_LIST_CAPS.tiers);
  for (const tier of shown) {
    const range =
      tier.max_energy === null
        ? `${formatCount(tier.min_energy)}+`
        : `${formatCount(tier.min_energy)}–${formatCount(tier.max_energy)}`;
    spans.push(plain(`\n    ${range}: ${formatCount(tier.price)} ${unit} (${clip(tier.label, 20)})`));
  }
  if (more > 0) spans.push(plain(`\n    ${moreLine(more)} tiers`));
  return text(...spans);
}

/** What the common amounts cost now: the current period's matching tier, else its price. */
function costBlock(service: PeriodicService, list: PriceList): Block {
  const current = service.periods.find((p) => p.is_current);
  if (!current) return context("No period is marked current, so no cost is shown.");
  const lines = COMMON_ENERGY_AMOUNTS.map((amount) => {
    const price = energyPriceSun(service, amount) ?? current.price;
    const trx = new Big(price).times(amount).div(perTrx(list, service.unit)).toString();
    const usd = usdOf(trx, list.data.trx_rate_usd);
    return `${formatCount(amount)} energy: ${formatDecimal(trx)} TRX ($${usd})`;
  });
  return text(plain(`Now (${clip(current.label, 30)}):\n`), plain(lines.join("\n")));
}

/** Rate keys as words: `standard_131k_initial` → "standard 131k initial". */
const words = (key: string): string => clip(key.replace(/_/g, " "), 40);

function hostBlock(service: HostService): Block {
  const unit = unitLabel(service.unit);
  const lines = Object.entries(service.rates).map(
    ([key, rate]) => `${words(key)}: ${formatDecimal(String(rate))} ${unit}`,
  );
  const shown = cappedLines(lines, PRICE_LIST_CAPS.rates, "rates");
  return text(shown.length > 0 ? shown.join("\n") : "No rates published.");
}

function amlBlock(service: AmlService): Block {
  const unit = unitLabel(service.unit);
  const entries = Object.entries(service.providers);
  if (entries.length === 0) return text("No provider is available to this account.");
  const lines = entries.map(
    ([name, p]) =>
      `${clip(name, 30)}: ${formatDecimal(p.price)} ${unit} (${formatDecimal(p.price_trx)} TRX) · ${p.available ? "available" : "unavailable"}`,
  );
  return text(cappedLines(lines, PRICE_LIST_CAPS.providers, "providers").join("\n"));
}

function bandwidthBlocks(service: BandwidthService, list: PriceList): Block[] {
  const unit = `${unitLabel(service.unit)}/unit`;
  const window = service.windows.find((w) => w.label === service.window);
  const day = ISO_DAYS[service.current_day_of_week - 1] ?? `day ${service.current_day_of_week}`;
  const where = window ? `, ${windowText(window.start, window.end)}` : "";
  const tierLines = service.tiers.map((tier) => {
    const range =
      tier.amount_max === null
        ? `${formatCount(tier.amount_min)}+`
        : `${formatCount(tier.amount_min)}–${formatCount(tier.amount_max - 1)}`;
    const { shown, more } = capList(tier.periods, PRICE_LIST_CAPS.tierPeriods);
    const listed = shown.map((p) => `${clip(p.id, 10)} ${formatCount(p.price)}`);
    const prices = [...listed, ...(more > 0 ? [moreLine(more)] : [])].join(" · ");
    return `${range} units: ${prices} ${unit}`;
  });
  const { surcharges: s, limits } = service;
  const small = `Under ${formatCount(s.small_order_threshold_units)} units: +${formatDecimal(s.small_order_surcharge_trx)} TRX`;
  return [
    text(bold(`Now: ${clip(service.window, 20)} window${where}, ${day}`)),
    text(
      tierLines.length > 0
        ? cappedLines(tierLines, PRICE_LIST_CAPS.bandwidthTiers, "tiers").join("\n")
        : "No tiers published for this window.",
    ),
    text(`${small}\ntrx_send option: +${formatDecimal(s.trx_send_surcharge_trx)} TRX`),
    context(
      `Orders of ${formatCount(limits.min_units)} to ${formatCount(limits.max_units)} units. ` +
        `1 TRX = ${formatCount(perTrx(list, service.unit))} SUN.`,
    ),
  ];
}

/** The one line for a service the list does not have, naming those it has. */
export function unknownServiceLine(shown: string, known: readonly string[], guess?: string): string {
  const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
  const list =
    known.length > 1 ? `${known.slice(0, -1).join(", ")} and ${known.at(-1)}` : (known[0] ?? "nothing");
  return `unknown service ${shown}${hint}: the price list has ${list}`;
}
