import type { PeriodicService } from "../../service/pricing.js";
import { formatCount } from "../parse/echo.js";

/**
 * What `chart prices` plots, from the price list alone: every period of the service over the UTC
 * day (a period whose start is after its end crosses midnight and shows as two pieces), its price,
 * its tiers, which one is current and which is cheapest. Nothing is named here: any number of
 * periods, any labels, any tiers.
 */
export const DAY_MIN = 24 * 60;

export interface PricePiece {
  /** Minutes after 00:00 UTC, end exclusive (1440 = midnight at the end of the day). */
  startMin: number;
  endMin: number;
}

export interface ChartPeriod {
  id: string;
  label: string;
  /** As the list writes them ("22:00", "24:00"). */
  start: string;
  end: string;
  price: number;
  pieces: PricePiece[];
  tiers: { label: string; price: number }[];
  current: boolean;
  cheapest: boolean;
}

export interface PriceChartData {
  service: string;
  /** "SUN" (the list's unit, upper-cased). */
  unit: string;
  periods: ChartPeriod[];
  /** Tier labels in the order the list first names them: one line each. */
  tierLabels: string[];
  /** Minutes after 00:00 UTC now. */
  nowMin: number;
  current?: ChartPeriod;
  cheapest: ChartPeriod;
  summary: string;
}

/** "06:30" → 390; "24:00" → 1440; undefined when unreadable. */
function minutesOf(hhmm: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm);
  if (!match) return undefined;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return Number(match[2]) < 60 && minutes <= DAY_MIN ? minutes : undefined;
}

/** The pieces of the day a window covers; start > end crosses midnight, start = end is the whole day. */
export function piecesOf(start: string, end: string): PricePiece[] {
  const from = minutesOf(start);
  const to = minutesOf(end);
  if (from === undefined || to === undefined) return [];
  if (from < to) return [{ startMin: from, endMin: to }];
  if (from === to) return [{ startMin: 0, endMin: DAY_MIN }];
  const pieces: PricePiece[] = [];
  if (from < DAY_MIN) pieces.push({ startMin: from, endMin: DAY_MIN });
  if (to > 0) pieces.push({ startMin: 0, endMin: to });
  return pieces;
}

const unitLabel = (unit: string): string => unit.replace(/_per_unit$/, "").toUpperCase();

const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** The chart's data, or undefined when the service publishes no period that can be placed on the day. */
export function buildPriceChart(
  name: string,
  service: PeriodicService,
  now: number,
): PriceChartData | undefined {
  const nowMin = Math.floor((((now % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
  const placed = service.periods
    .map((p) => ({ period: p, pieces: piecesOf(p.start, p.end) }))
    .filter((p) => p.pieces.length > 0);
  if (placed.length === 0) return undefined;
  const lowest = Math.min(...placed.map((p) => p.period.price));
  const currentId =
    placed.find((p) => p.period.is_current)?.period.id ??
    placed.find((p) => p.period.id === service.current_period)?.period.id;
  const periods: ChartPeriod[] = placed.map(({ period, pieces }) => ({
    id: period.id,
    label: period.label,
    start: period.start,
    end: period.end,
    price: period.price,
    pieces,
    tiers: (period.tiers ?? []).map((t) => ({ label: t.label, price: t.price })),
    current: period.id === currentId,
    cheapest: false,
  }));
  const cheapest = cheapestOf(periods, lowest, nowMin);
  cheapest.cheapest = true;
  const current = periods.find((p) => p.current);
  const tierLabels = [...new Set(periods.flatMap((p) => p.tiers.map((t) => t.label)))];
  const unit = unitLabel(service.unit);
  return {
    service: name,
    unit,
    periods,
    tierLabels,
    nowMin,
    ...(current && { current }),
    cheapest,
    summary: priceSummary(name, unit, current, cheapest),
  };
}

/** Of the periods at the lowest price, the one that comes next from now (the day wraps). */
function cheapestOf(periods: ChartPeriod[], lowest: number, nowMin: number): ChartPeriod {
  const candidates = periods.filter((p) => p.price === lowest);
  const wait = (p: ChartPeriod): number =>
    Math.min(
      ...p.pieces.map((piece) =>
        piece.startMin <= nowMin && nowMin < piece.endMin ? 0 : (piece.startMin - nowMin + DAY_MIN) % DAY_MIN,
      ),
    );
  return candidates.reduce((best, p) => (wait(p) < wait(best) ? p : best));
}

function priceSummary(
  name: string,
  unit: string,
  current: ChartPeriod | undefined,
  cheapest: ChartPeriod,
): string {
  const cheap = `${cheapest.label} ${formatCount(cheapest.price)} ${unit}`;
  const from = `from ${hhmm(cheapest.pieces[0]?.startMin ?? 0)} UTC`;
  if (!current) return `${name}: no period is marked current; cheapest ${cheap} ${from}`;
  if (current === cheapest) return `${name}: ${cheap} now, the cheapest of the day`;
  return `${name}: ${current.label} ${formatCount(current.price)} ${unit} now; cheapest ${cheap} ${from}`;
}

export { hhmm as formatMinutes };
