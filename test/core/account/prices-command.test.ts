import { describe, expect, it } from "vitest";
import { ENERGY_5M_PERIODS } from "../../../src/sandbox/price-book.js";
import { type CoreHarness, replyText, useCoreHarness, viewer } from "../../support/core-harness.js";

// Tuesday 09:30 UTC: the 5-minute "day" period, the 1-hour "peak", the bandwidth "day" window.
const TUESDAY_MORNING = Date.parse("2025-03-04T09:30:00Z");
const TUESDAY_EVENING = Date.parse("2025-03-04T19:10:00Z");

const harness = useCoreHarness();

/** A harness whose sandbox reads the harness clock, set to `at`: the core and the service agree on time. */
async function setupAt(at: number): Promise<CoreHarness> {
  let h: CoreHarness | undefined;
  h = await harness.setup({ sandbox: { now: () => (h ? h.clock.now() : Date.now()) } });
  h.clock.advance(at - h.clock.now());
  return h;
}

const linesOf = (text: string) => text.split("\n");

describe("prices", () => {
  it("lists every 5-minute period with its window and price, the current one marked, and the costs now", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    const reply = await h.run(viewer, "prices energy_5m");
    expect(reply.visibility).toBe("public");
    const text = replyText(reply);
    // Each period of the sandbox's data is listed, whatever their number.
    expect(ENERGY_5M_PERIODS.length).toBeGreaterThan(2);
    for (const p of ENERGY_5M_PERIODS)
      expect(text).toContain(`${p.label} · ${p.start}–${p.end} UTC · ${p.price} SUN`);
    const marked = linesOf(text).filter((l) => l.startsWith("▶"));
    expect(marked).toEqual(["▶ Day 06-18 · 06:00–18:00 UTC · 45 SUN (now)"]);
    // Tiers of the day period, range → price.
    expect(text).toContain("    61,000–199,999: 48 SUN (small)\n    200,000+: 43 SUN (bulk)");
    // 65,000 falls in the small tier (48 SUN): 3.12 TRX; 131,000 too: 6.288 TRX; USD at 0.3.
    expect(text).toContain("65,000 energy: 3.12 TRX ($0.94)\n131,000 energy: 6.288 TRX ($1.89)");
    expect(text).not.toContain("Energy rental for 1 hour");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);
    expect(h.sandbox.calls("pricing.get")[0]!.query).toEqual({});
  });

  it("moves the mark with the clock (cache and all) and recomputes the costs from the new period", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    expect(replyText(await h.run(viewer, "prices 5m"))).toContain("▶ Day 06-18");
    h.clock.advance(TUESDAY_EVENING - h.clock.now());
    const text = replyText(await h.run(viewer, "prices 5m"));
    expect(linesOf(text).filter((l) => l.startsWith("▶"))).toEqual([
      "▶ Evening 18-24 · 18:00–24:00 UTC · 42 SUN (now)",
    ]);
    // The evening period has no tiers: its own price, 42 SUN × 65,000 = 2.73 TRX.
    expect(text).toContain("65,000 energy: 2.73 TRX ($0.82)");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(2);
  });

  it("serves the list from the store until its cache_ttl runs out", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    await h.run(viewer, "prices");
    await h.run(viewer, "prices host");
    await h.run(viewer, "prices aml");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);
    // The shortest cache_ttl of the default list is the periodic services' 60 s.
    h.clock.advance(61_000);
    await h.run(viewer, "prices");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(2);
  });

  it("never serves a cached list past the end of its current period, even inside cache_ttl", async () => {
    const h = await setupAt(Date.parse("2025-03-04T17:59:50Z"));
    expect(replyText(await h.run(viewer, "prices 5m"))).toContain("▶ Day 06-18");
    h.clock.advance(20_000); // 18:00:10, well inside the 60 s cache_ttl
    expect(replyText(await h.run(viewer, "prices 5m"))).toContain("▶ Evening 18-24");
    expect(h.sandbox.calls("pricing.get")).toHaveLength(2);
  });

  it("shows everything by default: both energy services, host rates, AML providers from the data", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    h.sandbox.account.providers = ["provider_a", "provider_b"];
    const text = replyText(await h.run(viewer, "prices"));
    expect(text).toContain("Energy rental for 5 minutes · energy_5m");
    expect(text).toContain("Energy rental for 1 hour · energy_1h");
    expect(text).toContain("▶ Peak 08-20 · 08:00–20:00 UTC · 65 SUN (now)");
    expect(text).toContain("• Off-peak 20-08 · 20:00–08:00 UTC · 55 SUN");
    expect(text).toContain(
      "standard 65k: 2 TRX\nstandard 131k initial: 4 TRX\nfrequent 65k: 2 TRX\nfrequent 131k: 4 TRX",
    );
    expect(text).toContain("provider_a: 0.98 USDT (3.266667 TRX) · available");
    expect(text).toContain("provider_b: 1.5 USDT (5 TRX) · available");
    expect(text).toContain("Price list 2.3.0 · 2025-03-04 09:30:");
    expect(text).not.toContain("Bandwidth");
  });

  it("matches a word to the services that have it as a part: energy → both energy services", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    const text = replyText(await h.run(viewer, "prices energy"));
    expect(text).toContain("energy_5m");
    expect(text).toContain("energy_1h");
    expect(text).not.toContain("standard 65k");
  });

  it("asks for bandwidth with services=bandwidth and shows the current window's tiers, surcharges, limits", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    const text = replyText(await h.run(viewer, "prices bandwidth"));
    const calls = h.sandbox.calls("pricing.get");
    expect(calls.map((c) => c.query)).toEqual([{}, { services: "bandwidth" }]);
    expect(text).toContain("Now: day window, 07:00–22:00 UTC, Tuesday");
    // Weekday day-window grid of the sandbox: small 650/1000, large 600/950.
    expect(text).toContain(
      "400–999 units: 5m 650 · 1h 1,000 SUN/unit\n1,000+ units: 5m 600 · 1h 950 SUN/unit",
    );
    expect(text).toContain("Under 1,000 units: +0.1 TRX\ntrx_send option: +0.5 TRX");
    expect(text).toContain("Orders of 400 to 5,000 units.");
  });

  it("answers an unknown service with one line naming the services that exist, and no extra call", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    const reply = await h.run(viewer, "prices hots");
    expect(reply).toMatchObject({ visibility: "private" });
    expect(reply.blocks).toHaveLength(1);
    expect(reply.summary).toBe(
      'unknown service "hots" (did you mean host?): the price list has energy_1h, energy_5m, host, aml and bandwidth',
    );
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);
    expect((await h.run(viewer, "prices a b")).summary).toMatch(/^prices takes at most one service/);
  });

  it("says the service failed in one line when the price list cannot be read", async () => {
    const h = await setupAt(TUESDAY_MORNING);
    h.sandbox.inject("pricing.get", { kind: "reply", reply: { status: 500, json: { detail: "boom" } } });
    const reply = await h.run(viewer, "prices");
    expect(reply.summary).toBe("The service had a problem (HTTP 500); try again later.");
    expect(reply.visibility).toBe("private");
  });
});
