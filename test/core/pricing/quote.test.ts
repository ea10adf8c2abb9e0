import { describe, expect, it } from "vitest";
import { UserError } from "../../../src/core/errors.js";
import { buildEnergyQuote, buildHostQuote, chunkSizes, routeFor } from "../../../src/core/pricing/quote.js";
import type { PeriodicService, PriceList } from "../../../src/service/pricing.js";

const ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

function periodic(overrides: Partial<PeriodicService> = {}): PeriodicService {
  return {
    unit: "sun",
    pricing_type: "periodic",
    description: "test",
    cache_ttl: 60,
    current_period: "b",
    periods: [
      { id: "a", label: "A", start: "00:00", end: "12:00", is_current: false, price: 30, tiers: null },
      {
        id: "b",
        label: "Period B",
        start: "12:00",
        end: "24:00",
        is_current: true,
        price: 50,
        tiers: [
          { min_energy: 61_000, max_energy: 99_999, price: 51, label: "s" },
          { min_energy: 100_000, max_energy: null, price: 47, label: "l" },
        ],
      },
    ],
    ...overrides,
  };
}

const list = (services: PriceList["data"]["services"]): PriceList => ({
  success: true,
  version: "1",
  timestamp: "2025-03-01T12:00:00Z",
  data: { trx_rate_usd: "0.25", units_meta: {}, services },
});

describe("chunkSizes: the orchestrator's even split", () => {
  it.each([
    [700_000, [{ amount: 700_000, count: 1 }]],
    [1_000_000, [{ amount: 1_000_000, count: 1 }]],
    [
      1_000_001,
      [
        { amount: 500_001, count: 1 },
        { amount: 500_000, count: 1 },
      ],
    ],
    [
      2_500_000,
      [
        { amount: 833_334, count: 1 },
        { amount: 833_333, count: 2 },
      ],
    ],
    [50_000_000, [{ amount: 1_000_000, count: 50 }]],
  ])("%i → %j", (amount, expected) => {
    expect(chunkSizes(amount)).toEqual(expected);
    expect(chunkSizes(amount).reduce((sum, c) => sum + c.amount * c.count, 0)).toBe(amount);
  });

  it("routes up to 650,000 to one 5-minute order, above that to the orchestrator", () => {
    expect(routeFor(650_000)).toBe("order5m");
    expect(routeFor(650_001)).toBe("orchestrator");
  });
});

describe("buildEnergyQuote", () => {
  it("uses the tier of the current period that matches the amount", () => {
    const q = buildEnergyQuote(list({ energy_5m: periodic() }), ADDRESS, 65_000);
    expect(q).toMatchObject({
      route: "order5m",
      service: "energy_5m",
      periodLabel: "Period B",
      unitPriceSun: 51,
    });
    expect(q.costTrx).toBe("3.315");
    expect(q.costUsd).toBe("0.83");
    expect(q.mayCostMore).toBe(false);
    expect(buildEnergyQuote(list({ energy_5m: periodic() }), ADDRESS, 300_000)).toMatchObject({
      unitPriceSun: 47,
      costTrx: "14.1",
      mayCostMore: true,
    });
  });

  it("falls back to the period's price without tiers, and to current_period without is_current", () => {
    const service = periodic({
      current_period: "a",
      periods: periodic().periods.map((p) => ({ ...p, is_current: false })),
    });
    expect(buildEnergyQuote(list({ energy_5m: service }), ADDRESS, 65_000)).toMatchObject({
      periodLabel: "A",
      unitPriceSun: 30,
      costTrx: "1.95",
    });
  });

  it("prices every chunk of an orchestrator order from energy_1h and sums them exactly", () => {
    const q = buildEnergyQuote(list({ energy_1h: periodic() }), ADDRESS, 2_500_000);
    expect(q.route).toBe("orchestrator");
    expect(q.service).toBe("energy_1h");
    expect(q.chunks).toEqual([
      { amount: 833_334, count: 1, priceSun: 47, costTrx: "39.166698" },
      { amount: 833_333, count: 2, priceSun: 47, costTrx: "39.166651" },
    ]);
    expect(q.costTrx).toBe("117.5");
  });

  it("refuses with one line when the list has no such service or no current period", () => {
    expect(() => buildEnergyQuote(list({}), ADDRESS, 65_000)).toThrow(UserError);
    expect(() => buildEnergyQuote(list({}), ADDRESS, 65_000)).toThrow(/no energy_5m prices/);
    const noneCurrent = periodic({
      current_period: "gone",
      periods: periodic().periods.map((p) => ({ ...p, is_current: false })),
    });
    expect(() => buildEnergyQuote(list({ energy_5m: noneCurrent }), ADDRESS, 65_000)).toThrow(
      /no current energy_5m period/,
    );
  });
});

describe("buildHostQuote", () => {
  const host = {
    unit: "trx",
    pricing_type: "flat_rates",
    description: "host",
    cache_ttl: 3600,
    rates: { standard_65k: 2.5, standard_131k_initial: 4.25, frequent_65k: 2, frequent_131k: 4.5 },
  };

  it("reads every rate from the price list", () => {
    expect(buildHostQuote(host, Date.parse("2026-01-01T00:00:00Z"))).toEqual({
      firstCycleTrx: "4.25",
      le65kTrx: "2.5",
      gt65kTrx: "4.5",
      idleTrx: "4.25",
      dailyMinimumTrx: "8",
      dailyMinimumFrom: "2026-08-29",
      dailyMinimumInForce: false,
    });
  });

  it("puts the daily minimum in force from 2026-08-29", () => {
    expect(buildHostQuote(host, Date.parse("2026-08-28T23:59:59Z")).dailyMinimumInForce).toBe(false);
    expect(buildHostQuote(host, Date.parse("2026-08-29T00:00:00Z")).dailyMinimumInForce).toBe(true);
  });
});
