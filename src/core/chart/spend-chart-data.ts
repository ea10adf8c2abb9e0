import Big from "big.js";
import { formatDecimal } from "../format.js";
import type { LedgerEntry } from "../ledger/entry.js";
import { energyBoughtOf, SPEND_KINDS, type SpendKind, spendsOf } from "../ledger/spends.js";

/**
 * What `chart spend` plots: TRX spent per UTC day by kind, read from the spend ledger as the
 * digest reads it, and the saving against burning TRX for the energy bought (at the network's energy fee,
 * when it is known), one value per day.
 */
const SPEND_KIND_LABELS: Record<SpendKind, string> = {
  energy: "Energy",
  payout: "Payout runs",
  host: "Host Mode cycles",
  screening: "Screenings",
};

export interface DayEntries {
  day: string;
  entries: readonly LedgerEntry[];
}

export interface SpendChartData {
  days: string[];
  /** Only the kinds that were spent on in the range, in the digest's order. */
  kinds: { kind: SpendKind; label: string; trx: number[]; totalTrx: string }[];
  totalTrx: string;
  /** Per day, TRX saved against burning TRX; absent when the fee is unknown or no energy was bought. */
  savedTrx?: number[];
  savedTotalTrx?: string;
  summary: string;
}

const SUN_PER_TRX = 1_000_000;

/** The chart's data, or undefined when nothing was spent in the range. */
export function buildSpendChart(
  days: readonly DayEntries[],
  feeSun: number | undefined,
): SpendChartData | undefined {
  const perKind = new Map<SpendKind, Big[]>(SPEND_KINDS.map((k) => [k, days.map(() => new Big(0))]));
  days.forEach(({ entries }, i) => {
    for (const spend of spendsOf(entries)) {
      const row = perKind.get(spend.kind);
      if (row) row[i] = (row[i] ?? new Big(0)).plus(spend.trx);
    }
  });
  const kinds = SPEND_KINDS.flatMap((kind) => {
    const row = perKind.get(kind) ?? [];
    const total = row.reduce((sum, v) => sum.plus(v), new Big(0));
    if (total.lte(0)) return [];
    return [{ kind, label: SPEND_KIND_LABELS[kind], trx: row.map(Number), totalTrx: total.toFixed() }];
  });
  if (kinds.length === 0) return undefined;
  const total = kinds.reduce((sum, k) => sum.plus(k.totalTrx), new Big(0)).toFixed();
  const saved = savingPerDay(days, feeSun);
  const data: SpendChartData = {
    days: days.map((d) => d.day),
    kinds,
    totalTrx: total,
    ...(saved && { savedTrx: saved.perDay.map(Number), savedTotalTrx: saved.total.toFixed() }),
    summary: "",
  };
  data.summary = spendSummary(data);
  return data;
}

function savingPerDay(days: readonly DayEntries[], feeSun: number | undefined) {
  if (feeSun === undefined) return undefined;
  let energy = 0;
  const perDay = days.map(({ entries }) => {
    const bought = energyBoughtOf(entries);
    energy += bought.reduce((n, b) => n + b.energy, 0);
    const paid = bought.reduce((sum, b) => sum.plus(b.paidTrx), new Big(0));
    const burn = new Big(feeSun).times(bought.reduce((n, b) => n + b.energy, 0)).div(SUN_PER_TRX);
    return burn.minus(paid);
  });
  if (energy === 0) return undefined;
  return { perDay, total: perDay.reduce((sum, v) => sum.plus(v), new Big(0)) };
}

const trx = (decimal: string): string => formatDecimal(new Big(decimal).round(2).toFixed());

function spendSummary(data: SpendChartData): string {
  const parts = data.kinds.map((k) => `${k.label} ${trx(k.totalTrx)}`).join(", ");
  const span = `${data.days.length} days to ${data.days.at(-1)}`;
  const saved =
    data.savedTotalTrx === undefined
      ? ""
      : `; ${trx(data.savedTotalTrx)} TRX saved against burning TRX for the energy`;
  return `Spent ${trx(data.totalTrx)} TRX over ${span} (${parts})${saved}`;
}
