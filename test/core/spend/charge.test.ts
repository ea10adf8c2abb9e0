import { expect, it } from "vitest";
import { hostCycleCharge } from "../../../src/core/host/host-cycles.js";
import { readSince } from "../../../src/core/ledger/ledger.js";
import { paidScreening } from "../../../src/core/screening/screening-spend.js";
import { checkCharge, recordCharge } from "../../../src/core/spend/charge.js";
import { capRefusal } from "../../../src/core/spend/check-at-quote.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { budgetUsedSun } from "../../../src/core/watch/budget.js";
import { scheduledRescreen } from "../../../src/core/watch/rescreen-spend.js";
import { forEachStore, stubDeps } from "../support.js";

/**
 * Spends no Confirm decides, as their features declare them: a paid screening (a person's
 * command), a scheduled re-screen (automatic, its own monthly budget) and a Host Mode cycle
 * (charged by the service). The pipeline checks and records them; the caps are its arithmetic.
 */
const person = "slack:U0OPER";
const charged = (id: string, trx: string) => ({
  id,
  actor: person,
  requester: person,
  address: "TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b",
  chargedTrx: trx,
  result: "ordered" as const,
  orderIds: [id],
  detail: `charged ${trx} TRX`,
});

forEachStore("charges through the pipeline", (get) => {
  it("a paid screening counts toward the person's day, and the caps then refuse the next one and an order", async () => {
    const { store, clock } = get();
    const deps = stubDeps({ store, clock, settings: { dailyLimitTrx: "5" } });
    const ask = { actor: person, priceTrx: "2" };
    expect(await checkCharge(deps, paidScreening, ask)).toEqual({ ok: true });
    await recordCharge(deps, paidScreening, { ...charged("scr-1", "2"), cap: { actor: person } });
    await recordCharge(deps, paidScreening, { ...charged("scr-2", "2"), cap: { actor: person } });
    // The same order told twice is one entry and one count.
    await recordCharge(deps, paidScreening, { ...charged("scr-2", "2"), cap: { actor: person } });
    expect((await spentTodaySun(store, person, clock.now)).toNumber()).toBe(4_000_000);
    expect(await checkCharge(deps, paidScreening, ask)).toEqual({
      ok: false,
      line: "This screening would cost 2 TRX, but only 1 TRX is left today of your daily limit of 5 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC).",
    });
    expect(await capRefusal(deps, person, "1.5")).toBe(
      "This order would cost 1.5 TRX, but only 1 TRX is left today of your daily limit of 5 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC).",
    );
    const entries = await readSince(store, clock.now(), 3_600_000);
    expect(entries.map((e) => [e.kind, e.amountSun])).toEqual([
      ["screening", 2_000_000],
      ["screening", 2_000_000],
    ]);
  });

  it("a screening with no known price is refused when a cap is set, with the caller's line", async () => {
    const { store, clock } = get();
    const deps = stubDeps({ store, clock, settings: { maxOrderTrx: "10" } });
    const unknownPrice = "The TRX price is unknown right now; try again later.";
    expect(await checkCharge(deps, paidScreening, { actor: person, priceTrx: null, unknownPrice })).toEqual({
      ok: false,
      line: unknownPrice,
    });
  });

  it("re-screens spend from their month's budget, read from the ledger's month total, not a person's day", async () => {
    const { store, clock } = get();
    const deps = stubDeps({ store, clock, settings: { dailyLimitTrx: "1", watch: { budgetTrx: "5" } } });
    const rescreen = (id: string) => ({ ...charged(id, "2"), actor: "watch:T1", requester: "watchlist" });
    await recordCharge(deps, scheduledRescreen, { ...rescreen("r-1"), cap: { actor: person } });
    await recordCharge(deps, scheduledRescreen, rescreen("r-2"));
    await recordCharge(deps, scheduledRescreen, rescreen("r-2"));
    expect(await budgetUsedSun(store, clock.now())).toBe(4_000_000);
    expect((await spentTodaySun(store, person, clock.now)).toNumber()).toBe(0);
    expect(await checkCharge(deps, scheduledRescreen, { actor: "watch:T1", priceTrx: "1" })).toEqual({
      ok: true,
    });
    expect(await checkCharge(deps, scheduledRescreen, { actor: "watch:T1", priceTrx: "2" })).toMatchObject({
      ok: false,
      budget: { usedTrx: "4", budgetTrx: "5" },
    });
    const entries = await readSince(store, clock.now(), 3_600_000);
    expect(entries.map((e) => e.kind)).toEqual(["rescreen", "rescreen"]);
  });

  it("a Host Mode cycle is never refused, and counts toward its starter's day (named in the cap's line)", async () => {
    const { store, clock } = get();
    const deps = stubDeps({ store, clock, settings: { dailyLimitTrx: "5" } });
    const cycle = { ...charged("cyc-1", "4.5"), actor: "host:T1", requester: person };
    await recordCharge(deps, hostCycleCharge, { ...cycle, cap: { actor: person } });
    expect(await checkCharge(deps, hostCycleCharge, { actor: person, priceTrx: "4.5" })).toEqual({
      ok: true,
    });
    expect((await spentTodaySun(store, person, clock.now)).toNumber()).toBe(4_500_000);
    expect(await capRefusal(deps, person, "1")).toBe(
      "This order would cost 1 TRX, but only 0.5 TRX is left today of your daily limit of 5 TRX (OPS_DAILY_LIMIT_TRX, resets at 00:00 UTC). Host Mode cycles you started count toward it: 4.5 TRX of today's total.",
    );
  });
});
