import type { EChartsCoreOption } from "echarts/core";
import { formatDecimal } from "../format.js";
import type { BalanceChartData } from "./balance-chart-data.js";
import { baseOption, THEME } from "./chart-svg.js";

/**
 * The balance chart: the kept readings, the dashed projection to zero at the current spend rate,
 * the low-balance level as a horizontal line and the runway alert as a moment ahead of now.
 */
const pad = (n: number): string => String(n).padStart(2, "0");

/** "26 Nov 14:05" in UTC. */
function timeLabel(ms: number): string {
  const d = new Date(ms);
  const month = d.toUTCString().slice(8, 11);
  return `${d.getUTCDate()} ${month} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

function levelLines(data: BalanceChartData) {
  const lines: Record<string, unknown>[] = [
    { xAxis: data.now, label: { formatter: "now", color: THEME.now }, lineStyle: { color: THEME.now } },
  ];
  if (data.lowBalanceTrx !== undefined) {
    lines.push({
      yAxis: data.lowBalanceTrx,
      label: {
        formatter: `alert below ${formatDecimal(String(data.lowBalanceTrx))} TRX`,
        position: "insideEndTop",
      },
      lineStyle: { color: THEME.series[2], type: "dashed", width: 2 },
    });
  }
  if (data.runwayAlertAt !== undefined) {
    lines.push({
      xAxis: data.runwayAlertAt,
      label: {
        formatter: `alert: under ${formatDecimal(String(data.alertHours))} h left`,
        position: "insideEndTop",
      },
      lineStyle: { color: THEME.series[3], type: "dashed", width: 2 },
    });
  }
  return lines;
}

export function balanceChartOption(data: BalanceChartData): EChartsCoreOption {
  const readings = {
    name: "Balance readings",
    type: "line",
    data: data.readings.map((r) => [r.at, r.trx]),
    symbolSize: 7,
    lineStyle: { width: 3, color: THEME.series[0] },
    itemStyle: { color: THEME.series[0] },
    markLine: { silent: true, symbol: "none", label: { fontSize: 13 }, data: levelLines(data) },
  };
  const projection = data.projection && {
    name: "Projection at the current spend rate",
    type: "line",
    data: data.projection.map((p) => [p.at, p.trx]),
    showSymbol: false,
    lineStyle: { width: 3, type: "dashed", color: THEME.now },
    itemStyle: { color: THEME.now },
  };
  return {
    ...baseOption("Balance and runway (UTC)", data.summary),
    xAxis: {
      type: "time",
      axisLabel: {
        formatter: (ms: number) => timeLabel(ms),
        fontSize: 12,
        color: THEME.muted,
        hideOverlap: true,
      },
      splitLine: { show: true, lineStyle: { color: THEME.grid } },
    },
    yAxis: {
      type: "value",
      min: 0,
      name: "TRX",
      nameTextStyle: { fontSize: 13, color: THEME.muted },
      axisLabel: { fontSize: 13, color: THEME.muted },
      splitLine: { lineStyle: { color: THEME.grid } },
    },
    series: projection ? [readings, projection] : [readings],
  };
}
