import Big from "big.js";
import { formatDecimal } from "../format.js";

/**
 * What `chart balance` plots: the balance readings the runway keeps, the projection from the
 * latest one down to zero at the current spend rate, and the alert levels when they are set
 * (OPS_LOW_BALANCE_TRX as a balance, OPS_RUNWAY_ALERT_HOURS as a moment ahead of now).
 */
const HOUR_MS = 3_600_000;
/** The projection is drawn this far at most; beyond it the summary says when zero comes. */
export const PROJECTION_MAX_MS = 7 * 24 * HOUR_MS;

export interface BalanceReading {
  at: number;
  balanceTrx: string;
}

export interface BalanceLevels {
  lowBalanceTrx?: string;
  alertHours?: number;
}

export interface BalanceChartData {
  readings: { at: number; trx: number }[];
  /** From the latest reading to zero (or to the end of PROJECTION_MAX_MS): two points. */
  projection?: { at: number; trx: number }[];
  /** When zero is reached at the current rate; absent when nothing is being spent. */
  zeroAt?: number;
  lowBalanceTrx?: number;
  /** now + OPS_RUNWAY_ALERT_HOURS. */
  runwayAlertAt?: number;
  alertHours?: number;
  now: number;
  summary: string;
}

/** The chart's data, or undefined when there is no reading at all. */
export function buildBalanceChart(
  readings: readonly BalanceReading[],
  trxPerHour: Big,
  levels: BalanceLevels,
  now: number,
): BalanceChartData | undefined {
  const sorted = [...readings].sort((a, b) => a.at - b.at);
  const latest = sorted.at(-1);
  if (!latest) return undefined;
  const balance = new Big(latest.balanceTrx);
  const hours = trxPerHour.gt(0) && balance.gt(0) ? balance.div(trxPerHour) : undefined;
  const zeroAt = hours === undefined ? undefined : latest.at + hours.times(HOUR_MS).round(0).toNumber();
  const data: BalanceChartData = {
    readings: sorted.map((r) => ({ at: r.at, trx: Number(r.balanceTrx) })),
    ...(zeroAt !== undefined && { zeroAt, projection: projectionOf(latest, zeroAt, now) }),
    ...(levels.lowBalanceTrx !== undefined && { lowBalanceTrx: Number(levels.lowBalanceTrx) }),
    ...(levels.alertHours !== undefined && {
      alertHours: levels.alertHours,
      runwayAlertAt: now + levels.alertHours * HOUR_MS,
    }),
    now,
    summary: "",
  };
  data.summary = balanceSummary(latest, trxPerHour, hours, levels);
  return data;
}

function projectionOf(latest: BalanceReading, zeroAt: number, now: number): { at: number; trx: number }[] {
  const start = { at: latest.at, trx: Number(latest.balanceTrx) };
  const end = now + PROJECTION_MAX_MS;
  if (zeroAt <= end) return [start, { at: zeroAt, trx: 0 }];
  const share = (end - latest.at) / (zeroAt - latest.at);
  return [start, { at: end, trx: start.trx * (1 - share) }];
}

const amount = (decimal: string | Big): string => formatDecimal(new Big(decimal).round(2).toFixed());

function lasts(hours: Big): string {
  if (hours.gte(48)) return `about ${formatDecimal(hours.div(24).toFixed(1))} days`;
  return `about ${formatDecimal(hours.toFixed(1))} hours`;
}

function balanceSummary(
  latest: BalanceReading,
  rate: Big,
  hours: Big | undefined,
  levels: BalanceLevels,
): string {
  const head = `Balance ${amount(latest.balanceTrx)} TRX`;
  const runway =
    hours === undefined
      ? "no spending in the last 24 h, so no projection"
      : `at ${amount(rate)} TRX/h it lasts ${lasts(hours)}`;
  const alerts = [
    ...(levels.lowBalanceTrx !== undefined ? [`below ${amount(levels.lowBalanceTrx)} TRX`] : []),
    ...(levels.alertHours !== undefined ? [`under ${formatDecimal(String(levels.alertHours))} h left`] : []),
  ];
  return `${head}; ${runway}${alerts.length > 0 ? `; alert ${alerts.join(" or ")}` : ""}`;
}
