import Big from "big.js";
import { describe, expect, it } from "vitest";
import { buildBalanceChart, PROJECTION_MAX_MS } from "../../../src/core/chart/balance-chart-data.js";
import { buildSpendChart, type DayEntries } from "../../../src/core/chart/spend-chart-data.js";
import type { LedgerEntry, LedgerKind } from "../../../src/core/ledger/entry.js";

/** What `chart spend` and `chart balance` plot, from ledger entries and readings the test writes. */
let seq = 0;
const entry = (at: string, kind: LedgerKind, sun: number, more: Partial<LedgerEntry> = {}): LedgerEntry => {
  seq += 1;
  return {
    seq,
    at,
    kind,
    actor: "slack:U1",
    requester: "slack:U1",
    address: "TA",
    amountSun: sun,
    result: "ordered",
    orderIds: [],
    confirmationId: "",
    detail: "",
    prevHash: "0".repeat(64),
    hash: "1".repeat(64),
    ...more,
  };
};

const days: DayEntries[] = [
  {
    day: "2026-11-24",
    entries: [entry("2026-11-24T10:00:00Z", "energy", 3_250_000, { energy: 65_000 })],
  },
  { day: "2026-11-25", entries: [] },
  {
    day: "2026-11-26",
    entries: [
      entry("2026-11-26T09:00:00Z", "energy", 6_500_000, { energy: 131_000 }),
      entry("2026-11-26T09:30:00Z", "screening", 1_200_000),
      entry("2026-11-26T09:40:00Z", "screening", 0, { result: "failed" }),
      entry("2026-11-26T09:50:00Z", "refusal", 0, { result: "refused" }),
      entry("2026-11-26T10:00:00Z", "host_cycle", 2_250_000, { actor: "host:TB", address: "TB" }),
    ],
  },
];

describe("chart spend: what is plotted", () => {
  it("sums each day by kind as the digest counts spends, leaving out kinds nothing was spent on", () => {
    const data = buildSpendChart(days, 100);
    expect(data?.days).toEqual(["2026-11-24", "2026-11-25", "2026-11-26"]);
    expect(data?.kinds.map((k) => [k.label, k.trx])).toEqual([
      ["Energy", [3.25, 0, 6.5]],
      ["Host Mode cycles", [0, 0, 2.25]],
      ["Screenings", [0, 0, 1.2]],
    ]);
    expect(data?.totalTrx).toBe("13.2");
  });

  it("plots the saving against burning TRX per day at the network fee, and says the key numbers", () => {
    const data = buildSpendChart(days, 100);
    // 65,000 × 100 SUN = 6.5 TRX burnt vs 3.25 paid; 131,000 × 100 SUN = 13.1 TRX vs 6.5 paid.
    expect(data?.savedTrx).toEqual([3.25, 0, 6.6]);
    expect(data?.summary).toBe(
      "Spent 13.2 TRX over 3 days to 2026-11-26 (Energy 9.75, Host Mode cycles 2.25, Screenings 1.2); 9.85 TRX saved against burning TRX for the energy",
    );
  });

  it("leaves the saving out when the fee is unknown, and has nothing to plot without spends", () => {
    expect(buildSpendChart(days, undefined)?.savedTrx).toBeUndefined();
    expect(buildSpendChart(days, undefined)?.summary).not.toMatch(/saved/);
    expect(buildSpendChart([{ day: "2026-11-26", entries: [] }], 100)).toBeUndefined();
  });
});

describe("chart balance: what is plotted", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  const hour = 3_600_000;
  const readings = [
    { at: now - 2 * hour, balanceTrx: "120" },
    { at: now - 4 * hour, balanceTrx: "140" },
    { at: now - hour, balanceTrx: "100" },
  ];

  it("draws the readings in time order and the projection to zero at the spend rate", () => {
    const data = buildBalanceChart(readings, new Big(10), { lowBalanceTrx: "50", alertHours: 24 }, now);
    expect(data?.readings.map((r) => r.trx)).toEqual([140, 120, 100]);
    expect(data?.zeroAt).toBe(now - hour + 10 * hour);
    expect(data?.projection).toEqual([
      { at: now - hour, trx: 100 },
      { at: now + 9 * hour, trx: 0 },
    ]);
    expect(data?.lowBalanceTrx).toBe(50);
    expect(data?.runwayAlertAt).toBe(now + 24 * hour);
    expect(data?.summary).toBe(
      "Balance 100 TRX; at 10 TRX/h it lasts about 10 hours; alert below 50 TRX or under 24 h left",
    );
  });

  it("stops the projection a week ahead, and draws none when nothing is spent", () => {
    const slow = buildBalanceChart(readings, new Big("0.1"), {}, now);
    expect(slow?.projection?.[1]?.at).toBe(now + PROJECTION_MAX_MS);
    expect(slow?.projection?.[1]?.trx).toBeGreaterThan(0);
    expect(slow?.summary).toBe("Balance 100 TRX; at 0.1 TRX/h it lasts about 41.7 days");
    const idle = buildBalanceChart(readings, new Big(0), { alertHours: 12 }, now);
    expect(idle?.projection).toBeUndefined();
    expect(idle?.summary).toBe(
      "Balance 100 TRX; no spending in the last 24 h, so no projection; alert under 12 h left",
    );
    expect(buildBalanceChart([], new Big(1), {}, now)).toBeUndefined();
  });
});
