import { describe, expect, it } from "vitest";
import { DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import {
  bandwidthCostTrx,
  costTrx,
  currentPeriod,
  energyPriceSun,
  type PeriodicService,
  usdOf,
} from "../../src/service/pricing.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

// Tuesday 09:30 UTC: 5m "day" period, 1h "peak", bandwidth "day" window.
const TUESDAY_MORNING = Date.parse("2025-03-04T09:30:00Z");
// Tuesday 02:30 UTC: inside windows that cross midnight (1h off-peak, bandwidth night of Monday).
const TUESDAY_NIGHT = Date.parse("2025-03-04T02:30:00Z");

const kit = useSandboxClient({ lifetime: "test" });
const start = (at: number) => kit.start({ now: () => at });
const pricingApi = (caller: ClientOverrides = {}) => kit.client(caller).pricing;

describe("pricing.get (JSON)", () => {
  it("returns every default service, current periods computed from the clock, no bandwidth", async () => {
    const s = await start(TUESDAY_MORNING);
    const list = await pricingApi().get();
    expect(list.success).toBe(true);
    expect(list.timestamp).toBe("2025-03-04T09:30:00.000Z");
    expect(list.data.units_meta.sun).toEqual({ base: "trx", multiplier: 1_000_000 });
    expect(Object.keys(list.data.services).sort()).toEqual(["aml", "energy_1h", "energy_5m", "host"]);
    const e5m = list.data.services.energy_5m!;
    expect(e5m.current_period).toBe("day");
    expect(e5m.periods.filter((p) => p.is_current).map((p) => p.id)).toEqual(["day"]);
    expect(list.data.services.energy_1h!.current_period).toBe("peak");
    expect(list.data.services.host!.rates.standard_131k_initial).toBe(4);
    // Only the providers this account may order.
    expect(Object.keys(list.data.services.aml!.providers)).toEqual(["provider_a"]);
    expect(list.data.services.aml!.providers.provider_a).toEqual({
      price: "0.98",
      price_trx: "3.266667",
      available: true,
    });
    const [call] = s.calls("pricing.get");
    expect(call).toMatchObject({ status: 200, query: {} });
    expect(call!.headers["x-real-ip"]).toBe(DEFAULT_REAL_IP);
  });

  it("sends the services subset and gets only those; bandwidth comes only when asked", async () => {
    const s = await start(TUESDAY_MORNING);
    const list = await pricingApi().get({ services: ["energy_5m", "bandwidth"] });
    expect(Object.keys(list.data.services).sort()).toEqual(["bandwidth", "energy_5m"]);
    expect(s.calls("pricing.get")[0]!.query).toEqual({ services: "energy_5m,bandwidth" });
    const bw = list.data.services.bandwidth!;
    expect(bw.unit).toBe("sun_per_unit");
    expect(bw.window).toBe("day");
    expect(bw.current_day_of_week).toBe(2);
    expect(bw.limits).toEqual({ min_units: 400, max_units: 5000 });
    expect(bw.schedule).toHaveLength(7 * bw.windows.length);
    expect(bw.schedule.filter((e) => e.is_current)).toEqual([
      expect.objectContaining({ day_of_week: 2, window: "day", tiers: bw.tiers }),
    ]);
    expect(bw.windows.some((w) => w.start > w.end)).toBe(true);
  });

  it("lists every provider the account may order", async () => {
    const s = await start(TUESDAY_MORNING);
    s.accounts.add({ apiKey: "two-providers", providers: ["provider_a", "provider_b"] });
    const list = await pricingApi({ apiKey: "two-providers" }).get({ services: ["aml"] });
    expect(Object.keys(list.data.services.aml!.providers).sort()).toEqual(["provider_a", "provider_b"]);
  });

  it("marks windows that cross midnight as current after midnight", async () => {
    await start(TUESDAY_NIGHT);
    const list = await pricingApi().get({ services: ["energy_1h", "energy_5m", "bandwidth"] });
    expect(list.data.services.energy_1h!.current_period).toBe("offpeak");
    expect(list.data.services.energy_5m!.current_period).toBe("night");
    const bw = list.data.services.bandwidth!;
    expect(bw.window).toBe("night");
    // The night that started Monday 22:00 is Monday's schedule entry.
    expect(bw.current_day_of_week).toBe(1);
    expect(bw.schedule.find((e) => e.is_current)).toMatchObject({ day_of_week: 1, window: "night" });
  });

  it("401 for an IP outside the whitelist and for an unknown key", async () => {
    const s = await start(TUESDAY_MORNING);
    expect(await rejection(pricingApi({ realIp: "198.51.100.7" }).get())).toMatchObject({
      family: "pricing",
      endpoint: "pricing.get",
      httpStatus: 401,
      kind: "http",
    });
    expect((await rejection(pricingApi({ apiKey: "unknown-key" }).get())).httpStatus).toBe(401);
    expect(s.calls("pricing.get").map((c) => c.status)).toEqual([401, 401]);
  });

  it("403 code 1005 for a blocked key", async () => {
    const s = await start(TUESDAY_MORNING);
    s.account.blocked = true;
    expect(await rejection(pricingApi().get())).toMatchObject({ httpStatus: 403, code: 1005 });
  });
});

describe("pricing.get (X-Format text)", () => {
  it("now: label, per-unit price, then 65k/131k/1m in TRX and USD", async () => {
    const s = await start(TUESDAY_MORNING);
    const text = await pricingApi().get({ format: "now" });
    expect(text).toBe(
      "Peak 08-20 | 65 sun | 65k 4.225 TRX $1.27 | 131k 8.515 TRX $2.55 | 1m 65 TRX $19.50\n",
    );
    expect(s.calls("pricing.get")[0]!.headers["x-format"]).toBe("now");
  });

  it("compact, short and short1h carry the same figures; short1h has no label or unit price", async () => {
    await start(TUESDAY_MORNING);
    const api = pricingApi();
    expect(await api.get({ format: "compact" })).toBe("Peak 08-20 65 4.225/1.27 8.515/2.55 65/19.50\n");
    expect(await api.get({ format: "short" })).toBe(
      "Peak 08-20 65sun 65k=4.225TRX($1.27) 131k=8.515TRX($2.55) 1m=65TRX($19.50)\n",
    );
    const short1h = await api.get({ format: "short1h" });
    expect(short1h).toBe("65k=4.225TRX($1.27) 131k=8.515TRX($2.55) 1m=65TRX($19.50)\n");
    expect(short1h).not.toContain("Peak");
  });

  it("count: prices for 1, 2, 3, 5, 10 and 20 orders", async () => {
    await start(TUESDAY_MORNING);
    const lines = (await pricingApi().get({ format: "count" })).trim().split("\n");
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["1", "2", "3", "5", "10", "20"]);
    expect(lines[5]).toBe("20 x 65k: 84.5 TRX $25.35");
  });
});

describe("pricing helpers over the served list", () => {
  it("derive the text line's figures from the JSON without hard-coding periods", async () => {
    await start(TUESDAY_MORNING);
    const list = await pricingApi().get({ services: ["energy_1h", "energy_5m", "bandwidth"] });
    const e1h = list.data.services.energy_1h!;
    expect(currentPeriod(e1h)?.label).toBe("Peak 08-20");
    const trx = costTrx(energyPriceSun(e1h, 65_000)!, 65_000);
    expect(trx).toBe("4.225");
    expect(usdOf(trx, list.data.trx_rate_usd)).toBe("1.27");
    // Tiers of the current 5m period decide by amount (inclusive max), else the period price.
    const e5m = list.data.services.energy_5m!;
    expect(energyPriceSun(e5m, 199_999)).toBe(48);
    expect(energyPriceSun(e5m, 200_000)).toBe(43);
    expect(energyPriceSun(e5m, 10)).toBe(45);
    // Bandwidth: price / 1e6 * amount, plus the small-order surcharge under the threshold.
    const bw = list.data.services.bandwidth!;
    expect(bandwidthCostTrx(bw, 400, "5m")).toBe("0.36");
    expect(bandwidthCostTrx(bw, 5000, "1h")).toBe("4.75");
    expect(bandwidthCostTrx(bw, 400, "2h")).toBeUndefined();
  });

  it("currentPeriod falls back to current_period and costTrx stays exact", () => {
    const service: PeriodicService = {
      unit: "sun",
      pricing_type: "periodic",
      description: "",
      cache_ttl: 60,
      current_period: "b",
      periods: [
        { id: "a", label: "A", start: "00:00", end: "12:00", is_current: false, price: 10, tiers: null },
        { id: "b", label: "B", start: "12:00", end: "24:00", is_current: false, price: 33, tiers: null },
      ],
    };
    expect(currentPeriod(service)?.id).toBe("b");
    expect(energyPriceSun(service, 65_000)).toBe(33);
    expect(costTrx(33, 131_000)).toBe("4.323");
    expect(costTrx(1, 1)).toBe("0.000001");
    expect(energyPriceSun({ ...service, current_period: "zzz" }, 65_000)).toBeUndefined();
  });
});
