import type { EChartsCoreOption } from "echarts/core";
import { baseOption, THEME } from "./chart-svg.js";
import { type ChartPeriod, DAY_MIN, formatMinutes, type PriceChartData } from "./price-chart-data.js";

/**
 * The price chart: the UTC day from 00:00 to 24:00, the price of each period as a step line, one
 * thinner line per tier, each period shaded with its label, the cheapest one in green, now in red.
 */
type Point = [number, number] | null;

/** Horizontal pieces joined into one line; a gap in the day (no period) breaks the line. */
function stepLine(periods: readonly ChartPeriod[], priceOf: (p: ChartPeriod) => number | undefined): Point[] {
  const pieces = periods
    .flatMap((p) => {
      const price = priceOf(p);
      return price === undefined ? [] : p.pieces.map((piece) => ({ ...piece, price }));
    })
    .sort((a, b) => a.startMin - b.startMin);
  const points: Point[] = [];
  let lastEnd: number | undefined;
  for (const piece of pieces) {
    if (lastEnd !== undefined && piece.startMin !== lastEnd) points.push(null);
    points.push([piece.startMin, piece.price], [piece.endMin, piece.price]);
    lastEnd = piece.endMin;
  }
  return points;
}

/** Labels fit a piece of at least this many minutes (1 minute ≈ 0.75 px). */
const LABEL_MIN_MINUTES = 100;

function periodAreas(data: PriceChartData) {
  let shade = 0;
  return data.periods.flatMap((period) =>
    period.pieces.map((piece) => {
      const color = period.cheapest ? THEME.goodArea : THEME.areas[shade++ % THEME.areas.length];
      const text = period.cheapest ? `${period.label} (cheapest)` : period.label;
      return [
        {
          xAxis: piece.startMin,
          itemStyle: { color },
          label: {
            show: piece.endMin - piece.startMin >= LABEL_MIN_MINUTES,
            formatter: text,
            position: "insideTop",
            distance: 6,
            fontSize: 13,
            color: period.cheapest ? THEME.good : THEME.muted,
            fontWeight: period.cheapest ? "bold" : "normal",
            overflow: "truncate",
            width: Math.max(40, (piece.endMin - piece.startMin) * 0.7),
          },
        },
        { xAxis: piece.endMin },
      ];
    }),
  );
}

export function priceChartOption(data: PriceChartData): EChartsCoreOption {
  const base = {
    name: `Price (${data.unit} per energy)`,
    type: "line",
    data: stepLine(data.periods, (p) => p.price),
    showSymbol: false,
    lineStyle: { width: 4, color: THEME.series[0] },
    itemStyle: { color: THEME.series[0] },
    markArea: { silent: true, data: periodAreas(data) },
    markLine: {
      silent: true,
      symbol: "none",
      lineStyle: { color: THEME.now, width: 2, type: "solid" },
      label: { formatter: `now ${formatMinutes(data.nowMin)}`, color: THEME.now, fontSize: 13 },
      data: [{ xAxis: data.nowMin }],
    },
  };
  const tiers = data.tierLabels.map((label, i) => ({
    name: `Tier ${label}`,
    type: "line",
    data: stepLine(data.periods, (p) => p.tiers.find((t) => t.label === label)?.price),
    showSymbol: false,
    lineStyle: { width: 2, type: "dashed", color: THEME.series[(i + 1) % THEME.series.length] },
    itemStyle: { color: THEME.series[(i + 1) % THEME.series.length] },
  }));
  return {
    ...baseOption(`${data.service} price over the UTC day`, data.summary),
    xAxis: {
      type: "value",
      min: 0,
      max: DAY_MIN,
      interval: 180,
      axisLabel: { formatter: (m: number) => formatMinutes(m), fontSize: 13, color: THEME.muted },
      splitLine: { lineStyle: { color: THEME.grid } },
    },
    yAxis: {
      type: "value",
      min: 0,
      name: data.unit,
      nameTextStyle: { fontSize: 13, color: THEME.muted },
      axisLabel: { fontSize: 13, color: THEME.muted },
      splitLine: { lineStyle: { color: THEME.grid } },
    },
    series: [base, ...tiers],
  };
}
