import type Big from "big.js";
import type { PriceList } from "../../service/pricing.js";
import type { ImageAttachment } from "../reply.js";
import { type BalanceLevels, type BalanceReading, buildBalanceChart } from "./balance-chart-data.js";
import { balanceChartOption } from "./balance-chart-options.js";
import { renderChart } from "./chart-svg.js";
import { buildPriceChart } from "./price-chart-data.js";
import { priceChartOption } from "./price-chart-options.js";
import { buildSpendChart, type DayEntries } from "./spend-chart-data.js";
import { spendChartOption } from "./spend-chart-options.js";

/**
 * Data → picture for each chart: the pure builder decides what is plotted (and whether there is
 * anything to plot), the options say how, the renderer draws it. Undefined: nothing to chart.
 */
const stamp = (now: number): string => new Date(now).toISOString().slice(0, 10);

export type PeriodicName = "energy_5m" | "energy_1h";

export async function priceChartImage(
  list: PriceList,
  name: PeriodicName,
  now: number,
): Promise<ImageAttachment | undefined> {
  const service = list.data.services[name];
  const data = service && buildPriceChart(name, service, now);
  if (!data) return undefined;
  return renderChart(priceChartOption(data), {
    filename: `prices-${name}-${stamp(now)}.png`,
    summary: data.summary,
  });
}

export async function spendChartImage(
  days: readonly DayEntries[],
  feeSun: number | undefined,
): Promise<ImageAttachment | undefined> {
  const data = buildSpendChart(days, feeSun);
  if (!data) return undefined;
  return renderChart(spendChartOption(data), {
    filename: `spend-${days.length}d-${days.at(-1)?.day ?? "days"}.png`,
    summary: data.summary,
  });
}

export async function balanceChartImage(
  readings: readonly BalanceReading[],
  trxPerHour: Big,
  levels: BalanceLevels,
  now: number,
): Promise<ImageAttachment | undefined> {
  const data = buildBalanceChart(readings, trxPerHour, levels, now);
  if (!data) return undefined;
  return renderChart(balanceChartOption(data), {
    filename: `balance-${stamp(now)}.png`,
    summary: data.summary,
  });
}
