import { describe, expect, it } from "vitest";
import { renderPrices, serviceNames, unknownServiceLine } from "../../../src/core/account/prices-render.js";
import { createAccountBook, DEFAULT_API_KEY } from "../../../src/sandbox/accounts.js";
import { priceList } from "../../../src/sandbox/families/account/pricing.js";
import { type PriceList, priceListSchema } from "../../../src/service/pricing.js";
import { replyText } from "../../support/core-harness.js";

const TUESDAY_MORNING = Date.parse("2025-03-04T09:30:00Z");

interface RawPeriodic {
  current_period: string;
  periods: { id: string; is_current: boolean; tiers: unknown[] | null; [field: string]: unknown }[];
}

/** The parts of the raw JSON the tests edit. */
interface RawList {
  data: {
    trx_rate_usd: number | string;
    units_meta: Record<string, { base: string; multiplier: number }>;
    services: {
      energy_5m: RawPeriodic;
      energy_1h: RawPeriodic;
      host: { rates: Record<string, number> };
      aml: { providers: Record<string, unknown> };
    };
  };
}

/** The sandbox's list as the client would parse it; `edit` changes the raw JSON first. */
function listFrom(edit: (raw: RawList) => void = () => {}): PriceList {
  const account = createAccountBook().add({ apiKey: DEFAULT_API_KEY });
  const raw: RawList = JSON.parse(
    JSON.stringify(
      priceList(account, TUESDAY_MORNING, ["energy_1h", "energy_5m", "host", "aml", "bandwidth"]),
    ),
  );
  edit(raw);
  return priceListSchema.parse(raw);
}

describe("renderPrices", () => {
  it("iterates periods, tiers, rates and providers as data: new ones show up, nothing is assumed", async () => {
    const list = listFrom((raw) => {
      const e5m = raw.data.services.energy_5m;
      e5m.periods.push({
        id: "late",
        label: "Late 23-24",
        start: "23:00",
        end: "24:00",
        is_current: false,
        price: 30,
        tiers: [{ min_energy: 61000, max_energy: null, price: 29, label: "all" }],
      });
      e5m.periods[1]!.tiers!.push({ min_energy: 500000, max_energy: null, price: 41, label: "whale" });
      raw.data.services.host.rates.frequent_131k = 3.5;
      raw.data.services.aml.providers.provider_z = { price: "2.10", price_trx: "7", available: false };
    });
    const text = replyText(renderPrices(list, serviceNames(list)));
    expect(text).toContain("• Late 23-24 · 23:00–24:00 UTC · 30 SUN\n    61,000+: 29 SUN (all)");
    expect(text).toContain("    500,000+: 41 SUN (whale)");
    expect(text).toContain("frequent 131k: 3.5 TRX");
    expect(text).toContain("provider_z: 2.1 USDT (7 TRX) · unavailable");
  });

  it("marks the period the data marks current, whatever its place, and prices the common amounts from it", () => {
    const list = listFrom((raw) => {
      for (const p of raw.data.services.energy_5m.periods) p.is_current = p.id === "night";
    });
    const reply = renderPrices(list, ["energy_5m"]);
    const text = replyText(reply);
    expect(text.split("\n").filter((l) => l.startsWith("▶"))).toEqual([
      "▶ Night 00-06 · 00:00–06:00 UTC · 38 SUN (now)",
    ]);
    // Night small tier: 40 SUN × 65,000 = 2.6 TRX; × 131,000 = 5.24 TRX.
    expect(text).toContain(
      "Now (Night 00-06):\n65,000 energy: 2.6 TRX ($0.78)\n131,000 energy: 5.24 TRX ($1.57)",
    );
    expect(reply.summary).toBe("Prices: energy_5m Night 00-06 38 SUN");
  });

  it("converts with units_meta and rounds USD half-up on exact decimals", () => {
    const list = listFrom((raw) => {
      raw.data.trx_rate_usd = "0.125";
      raw.data.units_meta.sun = { base: "trx", multiplier: 1_000_000 };
    });
    // Peak 65 SUN × 65,000 = 4.225 TRX; × 0.125 = 0.528125 → $0.53.
    expect(replyText(renderPrices(list, ["energy_1h"]))).toContain("65,000 energy: 4.225 TRX ($0.53)");
  });

  it("says so when no period is current and when no provider is listed", () => {
    const list = listFrom((raw) => {
      for (const p of raw.data.services.energy_1h.periods) p.is_current = false;
      raw.data.services.energy_1h.current_period = "gone";
      raw.data.services.aml.providers = {};
    });
    const text = replyText(renderPrices(list, ["energy_1h", "aml"]));
    expect(text).not.toContain("▶");
    expect(text).toContain("No period is marked current, so no cost is shown.");
    expect(text).toContain("No provider is available to this account.");
  });

  it("keeps every line short enough for a phone", () => {
    const list = listFrom();
    const lines = replyText(renderPrices(list, serviceNames(list))).split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(64);
  });

  it("names the known services in one line", () => {
    expect(unknownServiceLine('"x"', ["energy_5m", "host", "bandwidth"])).toBe(
      'unknown service "x": the price list has energy_5m, host and bandwidth',
    );
  });
});
