import { describe, expect, it } from "vitest";
import { buildPriceChart, piecesOf } from "../../../src/core/chart/price-chart-data.js";
import { priceChartOption } from "../../../src/core/chart/price-chart-options.js";
import type { EnergyPeriod, PeriodicService } from "../../../src/service/pricing.js";

/**
 * What `chart prices` plots, from a price list the bot has never seen: labels, counts, times and
 * tiers are all the list's own, one period crosses midnight.
 */
const period = (
  p: Partial<EnergyPeriod> & Pick<EnergyPeriod, "id" | "start" | "end" | "price">,
): EnergyPeriod => ({
  label: p.id,
  is_current: false,
  tiers: null,
  ...p,
});

const service = (periods: EnergyPeriod[], current = ""): PeriodicService => ({
  unit: "sun",
  pricing_type: "periodic",
  description: "Energy for 5 minutes",
  cache_ttl: 60,
  current_period: current,
  periods,
});

const at = (hhmm: string) => Date.parse(`2026-11-26T${hhmm}:00Z`);

const fivePeriods = service([
  period({
    id: "owl",
    label: "Owl shift",
    start: "21:30",
    end: "04:15",
    price: 57,
    is_current: true,
    tiers: [
      { min_energy: 0, max_energy: 131_000, price: 60, label: "retail" },
      { min_energy: 131_001, max_energy: null, price: 52, label: "wholesale" },
    ],
  }),
  period({ id: "dawn", label: "Dawn", start: "04:15", end: "09:00", price: 38 }),
  period({
    id: "office",
    label: "Office hours",
    start: "09:00",
    end: "17:00",
    price: 64,
    tiers: [{ min_energy: 0, max_energy: null, price: 61, label: "wholesale" }],
  }),
  period({ id: "late", label: "Late", start: "17:00", end: "19:00", price: 38 }),
  period({ id: "eve", label: "Evening", start: "19:00", end: "21:30", price: 45 }),
]);

describe("chart prices: what is plotted", () => {
  it("splits a period that crosses midnight into its two pieces of the day", () => {
    expect(piecesOf("21:30", "04:15")).toEqual([
      { startMin: 21 * 60 + 30, endMin: 1440 },
      { startMin: 0, endMin: 4 * 60 + 15 },
    ]);
    expect(piecesOf("18:00", "24:00")).toEqual([{ startMin: 1080, endMin: 1440 }]);
    expect(piecesOf("00:00", "00:00")).toEqual([{ startMin: 0, endMin: 1440 }]);
    expect(piecesOf("22:00", "00:00")).toEqual([{ startMin: 1320, endMin: 1440 }]);
    expect(piecesOf("soon", "06:00")).toEqual([]);
  });

  it("takes every period, label, price and tier from the list; marks now and the next cheapest", () => {
    const data = buildPriceChart("energy_5m", fivePeriods, at("23:10"));
    expect(data).toBeDefined();
    if (!data) return;
    expect(data.periods.map((p) => [p.label, p.price])).toEqual([
      ["Owl shift", 57],
      ["Dawn", 38],
      ["Office hours", 64],
      ["Late", 38],
      ["Evening", 45],
    ]);
    expect(data.periods[0]?.pieces).toHaveLength(2);
    expect(data.tierLabels).toEqual(["retail", "wholesale"]);
    expect(data.periods[2]?.tiers).toEqual([{ label: "wholesale", price: 61 }]);
    expect(data.nowMin).toBe(23 * 60 + 10);
    expect(data.current?.label).toBe("Owl shift");
    // Two periods share the lowest price: the one that comes next after 23:10 is Dawn (04:15).
    expect(data.cheapest.label).toBe("Dawn");
    expect(data.periods.filter((p) => p.cheapest).map((p) => p.id)).toEqual(["dawn"]);
    expect(data.summary).toBe("energy_5m: Owl shift 57 SUN now; cheapest Dawn 38 SUN from 04:15 UTC");
  });

  it("chooses the later cheap period once the first has passed", () => {
    const data = buildPriceChart("energy_5m", fivePeriods, at("12:00"));
    expect(data?.cheapest.label).toBe("Late");
    expect(data?.summary).toBe("energy_5m: Owl shift 57 SUN now; cheapest Late 38 SUN from 17:00 UTC");
  });

  it("says so when now is the cheapest, and falls back to current_period when nothing is flagged", () => {
    const list = service(
      [
        period({ id: "a", label: "Night", start: "20:00", end: "08:00", price: 30 }),
        period({ id: "b", label: "Day", start: "08:00", end: "20:00", price: 50 }),
      ],
      "a",
    );
    const data = buildPriceChart("energy_1h", list, at("02:00"));
    expect(data?.current?.label).toBe("Night");
    expect(data?.summary).toBe("energy_1h: Night 30 SUN now, the cheapest of the day");
  });

  it("says there is no current period, and has nothing to plot without placeable periods", () => {
    const list = service([period({ id: "x", label: "Only", start: "06:00", end: "10:00", price: 70 })]);
    expect(buildPriceChart("energy_5m", list, at("12:00"))?.summary).toBe(
      "energy_5m: no period is marked current; cheapest Only 70 SUN from 06:00 UTC",
    );
    expect(buildPriceChart("energy_5m", service([]), at("12:00"))).toBeUndefined();
    const unreadable = service([period({ id: "x", start: "later", end: "soon", price: 1 })]);
    expect(buildPriceChart("energy_5m", unreadable, at("12:00"))).toBeUndefined();
  });

  it("draws one step line per price and per tier, broken where the day has no period", () => {
    const gappy = service([
      period({ id: "a", label: "A", start: "22:00", end: "02:00", price: 40 }),
      period({ id: "b", label: "B", start: "06:00", end: "12:00", price: 60 }),
    ]);
    const data = buildPriceChart("energy_5m", gappy, at("07:00"));
    if (!data) throw new Error("no data");
    const option = priceChartOption(data) as { series: { name: string; data: unknown[] }[] };
    expect(option.series[0]?.data).toEqual([
      [0, 40],
      [120, 40],
      null,
      [360, 60],
      [720, 60],
      null,
      [1320, 40],
      [1440, 40],
    ]);
    const tiered = priceChartOption(buildPriceChart("energy_5m", fivePeriods, at("12:00"))!) as {
      series: { name: string; data: unknown[] }[];
    };
    expect(tiered.series.map((s) => s.name)).toEqual([
      "Price (SUN per energy)",
      "Tier retail",
      "Tier wholesale",
    ]);
    // The wholesale tier of the owl shift (both pieces) and of office hours; nothing where no tier is published.
    expect(tiered.series[2]?.data).toEqual([
      [0, 52],
      [255, 52],
      null,
      [540, 61],
      [1020, 61],
      null,
      [1290, 52],
      [1440, 52],
    ]);
  });
});
