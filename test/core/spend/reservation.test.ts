import { describe, expect, it } from "vitest";
import { releaseSpend, reserveSpend, settleSpend } from "../../../src/core/spend/reservation.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";

/** Reserve at Confirm, settle with the charge, release on a refusal: each once per confirmation. */
const actor = "slack:U0OPER";
const settings = { dailyLimitTrx: "5" };

function setup() {
  const store = createMemoryStore();
  const deps = { store, now: Date.now };
  const spent = async () => (await spentTodaySun(store, actor, Date.now)).toNumber();
  const reserve = (confirmationId: string, quoteTrx: string) =>
    reserveSpend(deps, { confirmationId, actor, quoteTrx, settings });
  return { deps, spent, reserve };
}

describe("spend reservations", () => {
  it("holds the quote at once, so a second Confirm that would pass the cap is refused", async () => {
    const { spent, reserve } = setup();
    expect(await reserve("c1", "3.7")).toEqual({ ok: true });
    expect(await spent()).toBe(3_700_000);
    const second = await reserve("c2", "3.7");
    expect(second).toEqual({
      ok: false,
      line: "This order would cost 3.7 TRX, but only 1.3 TRX is left today of your daily limit of 5 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC).",
    });
    expect(await spent()).toBe(3_700_000);
  });

  it("two reservations at the same instant: exactly one fits", async () => {
    const { spent, reserve } = setup();
    const results = await Promise.all([reserve("a", "3.7"), reserve("b", "3.7")]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(await spent()).toBe(3_700_000);
  });

  it("a re-run of the same confirmation holds nothing twice", async () => {
    const { spent, reserve } = setup();
    await reserve("c1", "3");
    expect(await reserve("c1", "3")).toEqual({ ok: true });
    expect(await spent()).toBe(3_000_000);
  });

  it("settles the hold with the charged amount, once", async () => {
    const { deps, spent, reserve } = setup();
    await reserve("c1", "3.7");
    expect(await settleSpend(deps, "c1", actor, "4.1")).toBe(true);
    expect(await settleSpend(deps, "c1", actor, "4.1")).toBe(false);
    expect(await spent()).toBe(4_100_000);
    await releaseSpend(deps, "c1");
    expect(await spent()).toBe(4_100_000);
  });

  it("releases the hold of a refusal, once, and makes room again", async () => {
    const { deps, spent, reserve } = setup();
    await reserve("c1", "3.7");
    await releaseSpend(deps, "c1");
    await releaseSpend(deps, "c1");
    expect(await spent()).toBe(0);
    expect(await reserve("c2", "3.7")).toEqual({ ok: true });
  });
});
