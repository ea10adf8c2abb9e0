import { describe, expect, it } from "vitest";
import type { EnergyQuote } from "../../../src/core/pricing/quote.js";
import { cheaperLater } from "../../../src/core/schedule/cheapest.js";
import { describeTiming, nextOccurrence, parseRepeat } from "../../../src/core/schedule/recurrence.js";
import type { PeriodicService } from "../../../src/service/pricing.js";

const at = (iso: string) => Date.parse(iso);

describe("nextOccurrence (UTC)", () => {
  it("daily: later today, else tomorrow; never the same moment again", () => {
    const daily = { atMin: 8 * 60, repeat: { kind: "daily" } as const };
    expect(nextOccurrence(daily, at("2025-03-01T07:59:00Z"))).toBe(at("2025-03-01T08:00:00Z"));
    expect(nextOccurrence(daily, at("2025-03-01T08:00:00Z"))).toBe(at("2025-03-02T08:00:00Z"));
  });

  it("weekdays skip the weekend; a day list wraps to next week", () => {
    const weekdays = parseRepeat("weekdays");
    if (!weekdays.ok) throw new Error(weekdays.error);
    // 2025-03-01 is a Saturday.
    expect(nextOccurrence({ atMin: 60, repeat: weekdays.value }, at("2025-03-01T12:00:00Z"))).toBe(
      at("2025-03-03T01:00:00Z"),
    );
    const sun = parseRepeat("sun");
    if (!sun.ok) throw new Error(sun.error);
    expect(nextOccurrence({ atMin: 0, repeat: sun.value }, at("2025-03-02T00:00:00Z"))).toBe(
      at("2025-03-09T00:00:00Z"),
    );
    expect(describeTiming({ atMin: 90, repeat: weekdays.value })).toBe("weekdays at 01:30 UTC");
  });

  it("once: its moment while ahead, then none", () => {
    const once = { atMin: 1, repeat: { kind: "once", at: at("2025-03-02T00:01:00Z") } as const };
    expect(nextOccurrence(once, at("2025-03-01T23:00:00Z"))).toBe(at("2025-03-02T00:01:00Z"));
    expect(nextOccurrence(once, at("2025-03-02T00:01:00Z"))).toBeUndefined();
  });

  it("refuses unknown day names and takes all seven as daily", () => {
    expect(parseRepeat("mon,funday")).toEqual({
      ok: false,
      error:
        'unknown day name "funday": write daily, weekdays, or days as sun,mon,tue,wed,thu,fri,sat (e.g. mon,wed,fri)',
    });
    expect(parseRepeat("sun,mon,tue,wed,thu,fri,sat")).toEqual({ ok: true, value: { kind: "daily" } });
  });
});

/** A price list service as the service publishes one: the bot assumes no count, label or time. */
function service(current: string): PeriodicService {
  const period = (id: string, start: string, end: string, price: number, small?: number) => ({
    id,
    label: `${id} ${start}-${end}`,
    start,
    end,
    is_current: id === current,
    price,
    tiers:
      small === undefined
        ? null
        : [{ min_energy: 61_000, max_energy: 199_999, price: small, label: "small" }],
  });
  return {
    unit: "sun_per_energy",
    pricing_type: "periodic",
    description: "",
    cache_ttl: 60,
    current_period: current,
    periods: [
      period("late", "22:30", "03:15", 30),
      period("early", "03:15", "09:00", 50, 33),
      period("rest", "09:00", "22:30", 60),
    ],
  };
}

const quote65k = (unit: number, label: string): EnergyQuote => ({
  address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  amount: 65_000,
  route: "order5m",
  service: "energy_5m",
  periodLabel: label,
  unitPriceSun: unit,
  chunks: [{ amount: 65_000, count: 1, priceSun: unit, costTrx: String((unit * 65_000) / 1e6) }],
  costTrx: String((unit * 65_000) / 1e6),
  costUsd: "0",
  mayCostMore: false,
});

describe("cheaperLater", () => {
  it("finds the cheapest later period by its tier price, its window crossing midnight, started plus a minute", () => {
    const later = cheaperLater(service("rest"), quote65k(60, "rest"), at("2025-03-01T12:00:00Z"));
    expect(later).toEqual({
      label: "late 22:30-03:15",
      startsAt: at("2025-03-01T22:30:00Z"),
      runAt: at("2025-03-01T22:31:00Z"),
      maxSun: 30,
      costTrx: "1.95",
      savesTrx: "1.95",
    });
  });

  it("uses a period's tier for the amount, not its headline price", () => {
    // At 23:00 the current period is "late" (30): nothing later is cheaper, even "early" (tier 33).
    expect(cheaperLater(service("late"), quote65k(30, "late"), at("2025-03-01T23:00:00Z"))).toBeUndefined();
    // "late" at 40 now: "early" is cheaper only by its small tier (33; its headline price is 50).
    const list = service("rest");
    list.periods = list.periods.map((p) => (p.id === "late" ? { ...p, price: 40 } : p));
    const fromEarly = cheaperLater(list, quote65k(34, "rest"), at("2025-03-01T21:00:00Z"));
    expect(fromEarly).toMatchObject({
      label: "early 03:15-09:00",
      maxSun: 33,
      startsAt: at("2025-03-02T03:15:00Z"),
    });
  });
});
