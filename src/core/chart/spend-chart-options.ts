import type { EChartsCoreOption } from "echarts/core";
import { baseOption, THEME } from "./chart-svg.js";
import type { SpendChartData } from "./spend-chart-data.js";

/** The spend chart: one stacked bar per UTC day by kind, the saving against burning TRX as a line. */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-11-26" → "Nov 26". */
const dayLabel = (day: string): string =>
  `${MONTHS[Number(day.slice(5, 7)) - 1] ?? day.slice(5, 7)} ${Number(day.slice(8, 10))}`;

export function spendChartOption(data: SpendChartData): EChartsCoreOption {
  const bars = data.kinds.map((k, i) => ({
    name: k.label,
    type: "bar",
    stack: "spent",
    barMaxWidth: 64,
    data: k.trx,
    itemStyle: { color: THEME.series[i % THEME.series.length] },
  }));
  const saving = data.savedTrx && {
    name: "Saved vs burning TRX",
    type: "line",
    data: data.savedTrx,
    symbolSize: 8,
    lineStyle: { width: 3, color: THEME.good },
    itemStyle: { color: THEME.good },
  };
  return {
    ...baseOption(`TRX spent per UTC day, last ${data.days.length} days`, data.summary),
    xAxis: {
      type: "category",
      data: data.days.map(dayLabel),
      axisLabel: { fontSize: 13, color: THEME.muted, interval: data.days.length > 15 ? 1 : 0 },
    },
    yAxis: {
      type: "value",
      name: "TRX",
      nameTextStyle: { fontSize: 13, color: THEME.muted },
      axisLabel: { fontSize: 13, color: THEME.muted },
      splitLine: { lineStyle: { color: THEME.grid } },
    },
    series: saving ? [...bars, saving] : bars,
  };
}
