import { describe, expect, it } from "vitest";
import {
  checkSpend,
  SPEND_TTL_MS,
  spendKey,
  sunToTrx,
  trxToSun,
} from "../../../src/core/spend/spend-guard.js";
import { admin, forEachStore, operator } from "../support.js";

describe("TRX ↔ SUN", () => {
  it("converts without float error and rounds a fraction of a SUN up", () => {
    expect(trxToSun("0.1").plus(trxToSun("0.2")).eq(trxToSun("0.3"))).toBe(true);
    expect(trxToSun("1.5").toString()).toBe("1500000");
    expect(trxToSun("0.0000001").toString()).toBe("1");
    expect(sunToTrx(1)).toBe("0.000001");
    expect(sunToTrx("123456789")).toBe("123.456789");
    expect(() => trxToSun("-1")).toThrow(RangeError);
    expect(() => trxToSun("abc")).toThrow();
  });

  it("keys the total by actor and UTC day", () => {
    expect(spendKey(operator, Date.parse("2025-03-01T23:59:59Z"))).toBe("spend:slack:U0OPER:2025-03-01");
    expect(spendKey("telegram:1", Date.parse("2025-03-02T00:00:00Z"))).toBe("spend:telegram:1:2025-03-02");
  });
});

forEachStore("spend guard", (get) => {
  const check = (
    quoteTrx: string,
    settings: { maxOrderTrx?: string; dailyLimitTrx?: string },
    actor = operator,
  ) => checkSpend({ store: get().store, actor, quoteTrx, settings, now: get().clock.now });
  // What a settled hold leaves in the day's total (reservation.ts), in SUN.
  const record = (amountTrx: string, actor = operator) =>
    get().store.incrBy(spendKey(actor, get().clock.now()), trxToSun(amountTrx).toNumber(), SPEND_TTL_MS);

  it("allows anything when no cap is set", async () => {
    await record("1000000");
    expect(await check("999999.999999", {})).toEqual({ ok: true });
  });

  it("refuses a quote above OPS_MAX_ORDER_TRX and allows one equal to it", async () => {
    expect(await check("10", { maxOrderTrx: "10" })).toEqual({ ok: true });
    expect(await check("10.000001", { maxOrderTrx: "10" })).toEqual({
      ok: false,
      line: "This order would cost 10.000001 TRX, above the cap of 10 TRX per order (OPS_MAX_ORDER_TRX).",
    });
  });

  it("counts the day's spending per actor and says how much is left", async () => {
    const settings = { dailyLimitTrx: "50" };
    expect(await record("20.5")).toBe(20_500_000);
    expect(await record("9.5")).toBe(30_000_000);
    expect(await check("20", settings)).toEqual({ ok: true });
    expect(await check("20.000001", settings)).toEqual({
      ok: false,
      line: "This order would cost 20.000001 TRX, but only 20 TRX is left today of your daily limit of 50 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC).",
    });
    // Another user has their own budget.
    expect(await check("50", settings, admin)).toEqual({ ok: true });
  });

  it("adds decimal amounts exactly (0.1 + 0.2 = 0.3)", async () => {
    await record("0.1");
    await record("0.2");
    expect(await get().store.get(spendKey(operator, get().clock.now()))).toBe("300000");
    const refused = await check("0.000001", { dailyLimitTrx: "0.3" });
    expect(refused).toEqual({
      ok: false,
      line: "You have used your daily limit of 0.3 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC); this order would cost 0.000001 TRX.",
    });
    expect(await check("0", { dailyLimitTrx: "0.3" })).toEqual({ ok: true });
  });

  it("starts a fresh budget at UTC midnight", async () => {
    const settings = { dailyLimitTrx: "10" };
    get().clock.set("2025-03-01T23:59:59.000Z");
    await record("9");
    expect((await check("2", settings)).ok).toBe(false);
    get().clock.set("2025-03-02T00:00:00.000Z");
    expect(await check("10", settings)).toEqual({ ok: true });
    await record("2");
    expect(await get().store.get(spendKey(operator, get().clock.now()))).toBe("2000000");
    expect((await check("8.000001", settings)).ok).toBe(false);
  });

  it("checks the per-order cap before the daily limit", async () => {
    const result = await check("30", { maxOrderTrx: "20", dailyLimitTrx: "10" });
    expect(result.ok === false && result.line).toContain("OPS_MAX_ORDER_TRX");
  });
});
