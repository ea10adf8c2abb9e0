import { describe, expect, it } from "vitest";
import { renderBalance } from "../../../src/core/account/balance-render.js";
import { formatAge } from "../../../src/core/format.js";
import type { Userinfo } from "../../../src/service/account.js";
import { replyText } from "../../support/core-harness.js";

const info = (stats: Partial<Userinfo["stats"]> = {}, trxPrice = 0.3): Userinfo => ({
  status: "success",
  timestamp: "2025-03-04 09:30:00",
  user_id: 1000,
  user_info: { email: "ops@example.com", name: "Ops", deposit_address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW" },
  stats: {
    balance: 500,
    total_delegations: 1234,
    total_energy_delegated: 80_650_000,
    total_trx_spent: 3326.5,
    total_deposit: 10_000,
    avg_rate_sun_energy: 41.25,
    save_by_netts_percent: 58.75,
    save_in_dollars: 1400.1,
    ...stats,
  },
  network_info: { trx_price: trxPrice, network_energy_fee: 100 },
});

const AT = Date.parse("2025-03-04T09:30:00Z");

describe("renderBalance", () => {
  it("writes every number as an exact decimal and keeps cents on dollars", () => {
    const text = replyText(renderBalance({ info: info(), fetchedAt: AT, now: AT }));
    expect(text).toContain("Balance: 500 TRX (≈ $150.00)");
    expect(text).toContain("Delegations: 1,234");
    expect(text).toContain("Energy delegated: 80,650,000");
    expect(text).toContain("TRX spent: 3,326.5 TRX");
    expect(text).toContain("Deposits: 10,000 TRX");
    expect(text).toContain("Saved: 58.75% · $1,400.10");
    expect(text).toContain("Average rate: 41.25 SUN/energy");
  });

  it("does the USD product on decimals, not floats (1.005 × 1 rounds half-up to 1.01)", () => {
    // As floats 1.005 is 1.00499999…, and (1.005).toFixed(2) is "1.00".
    const text = replyText(renderBalance({ info: info({ balance: 1.005 }, 1), fetchedAt: AT, now: AT }));
    expect(text).toContain("Balance: 1.005 TRX (≈ $1.01)");
    const tiny = replyText(renderBalance({ info: info({ balance: 1e-7 }), fetchedAt: AT, now: AT }));
    expect(tiny).toContain("Balance: 0.0000001 TRX");
  });

  it("says how old a served copy is, and why it is not fresh", () => {
    const slow = renderBalance({
      info: info(),
      fetchedAt: AT,
      now: AT + 95_000,
      stale: { reason: "rate_limit" },
    });
    expect(replyText(slow)).toContain("This copy is 95 s old: the service allows 6 account reads a minute");
    expect(replyText(slow)).toContain("read 95 s ago");
    const failed = renderBalance({
      info: info(),
      fetchedAt: AT,
      now: AT + 30_000,
      stale: { reason: "error", line: "Could not reach the service; try again in a moment." },
    });
    expect(replyText(failed)).toContain("This copy is 30 s old: could not reach the service;");
  });

  it("formats ages", () => {
    expect([0, 999, 1_000, 119_000, 120_000, 7_199_000, 7_200_000].map(formatAge)).toEqual([
      "<1 s",
      "<1 s",
      "1 s",
      "119 s",
      "2 min",
      "119 min",
      "2 h",
    ]);
  });
});
