import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import {
  type CoreHarnessOptions,
  headersTimeoutDispatcher,
  operator,
  replyButtons,
  replyText,
  viewer,
} from "../../support/core-harness.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress, quote, tokenOf, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The decision at Confirm (src/core/spend/decide-at-confirm.ts) over real parts: the sandbox over
 * HTTP (its price list and deny list changed at run time), the real client and core, a real
 * Redis store. Each money control holds for what is bought at Confirm, not for the quote.
 */
const spend = useSpendHarness();
let redis: ReturnType<typeof testRedis> | undefined;
afterEach(async () => {
  await redis?.cleanup();
  redis = undefined;
});

async function setup(options: CoreHarnessOptions = {}) {
  redis = testRedis();
  const store = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
  return spend.setup({ store, ...options });
}

const orders = (h: Awaited<ReturnType<typeof setup>>) =>
  [...h.sandbox.calls("order5m.create"), ...h.sandbox.calls("orchestrator.create")].filter(
    (c) => c.status > 0 && c.status < 300,
  );

describe("Confirm decides on the live price", () => {
  it("caps hold after a price rise: the re-quote above the cap is the refusal line, with no Confirm (issue 39)", async () => {
    // The case 1: caps of 4 TRX, 65k quoted at 48 SUN (3.12 TRX), the price goes to 71 SUN.
    const h = await setup({ settings: { maxOrderTrx: "4", dailyLimitTrx: "4" } });
    const q = await quote(h, `energy ${freshAddress("cap-rise")} 65k`);
    expect(replyText(q.reply)).toContain("Cost: 3.12 TRX");
    h.sandbox.prices.raiseEnergy(23);
    const moved = await h.click(operator, q.confirm);
    const text = replyText(moved);
    expect(text).toContain("The price rose by 1.495 TRX (3.12 → 4.615 TRX)");
    expect(text).toContain("Nothing was ordered");
    expect(text).toContain("This order would cost 4.615 TRX, above the cap of 4 TRX per order");
    expect(replyButtons(moved)).toEqual([]);
    expect(orders(h)).toEqual([]);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
  });

  it("approval is asked when a price rise takes the order to the threshold (orchestrator, 6,000,000 energy)", async () => {
    // The case 2: 6,000,000 energy quoted at 83 SUN (498 TRX), the 1-hour price goes to 97.
    const h = await setup({ settings: { approvalTrx: "500" } });
    h.sandbox.account.balanceSun = 5_000 * SUN_PER_TRX;
    h.sandbox.prices.raiseEnergy(83 - 65);
    const q = await quote(h, `energy ${freshAddress("approval-rise")} 6000000`);
    expect(replyText(q.reply)).toContain("Cost: 498 TRX");
    h.sandbox.prices.raiseEnergy(97 - 83);
    const moved = await h.click(operator, q.confirm);
    expect(replyText(moved)).toContain("The price rose by 84 TRX (498 → 582 TRX)");
    expect(orders(h)).toEqual([]);
    const asked = await h.click(operator, tokenOf(moved, /^Confirm/));
    expect(replyText(asked)).toContain("Approval needed");
    expect(replyText(asked)).toContain("Quote: 582 TRX");
    expect(orders(h)).toEqual([]);
  });

  it("a price fall orders at the lower price, and records what was paid", async () => {
    const h = await setup();
    h.sandbox.prices.raiseEnergy(10);
    const q = await quote(h, `energy ${freshAddress("fall")} 65k`);
    expect(replyText(q.reply)).toContain("Cost: 3.77 TRX");
    h.sandbox.prices.raiseEnergy(-10);
    const placed = await h.click(operator, q.confirm);
    expect(replyText(placed)).toMatch(/Paid: 3\.12 TRX \(quoted 3\.12 TRX\)/);
    expect(replyText(placed)).toContain("The price fell by 0.65 TRX since the quote: ordered at 3.12 TRX.");
    expect(orders(h)).toHaveLength(1);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(48 * 65_000);
    const audit = (await readAudit(h.store, 5)).find((e) => e.verb === "energy");
    expect(audit).toMatchObject({ result: "ok", quoteTrx: "3.12" });
  });

  it("says the period changed when the price rose because the period turned", async () => {
    const h = await setup();
    h.sandboxTime.set("2025-03-01T17:59:00.000Z");
    const q = await quote(h, `energy ${freshAddress("period")} 65k`);
    expect(replyText(q.reply)).toContain("Period: Day 06-18");
    // Evening 18-24 has no tiers: 42 SUN, cheaper than the day's small tier; raise it above.
    h.sandboxTime.set("2025-03-01T18:01:00.000Z");
    h.sandbox.prices.raiseEnergy(10);
    const moved = await h.click(operator, q.confirm);
    expect(replyText(moved)).toContain("the price period changed (Day 06-18 → Evening 18-24)");
    expect(replyText(moved)).toContain("Period: Evening 18-24");
    expect(orders(h)).toEqual([]);
  });

  it("decides on a cached list only when the service gives no answer in time, and only within cache_ttl", async () => {
    const h = await setup({
      client: { dispatcher: headersTimeoutDispatcher(150) },
      settings: { confirmCheckMs: 150 },
    });
    const first = await quote(h, `energy ${freshAddress("cached")} 65k`);
    // No answer in time, to the call and to the client's resend of it.
    h.sandbox.inject("pricing.get", { kind: "delay", ms: 400 }, 2);
    expect(replyText(await h.click(operator, first.confirm))).toContain("Energy delegated");
    expect(orders(h)).toHaveLength(1);

    const second = await quote(h, `energy ${freshAddress("cached")} 65k`);
    h.clock.advance(61_000);
    h.sandbox.inject("pricing.get", { kind: "delay", ms: 400 }, 2);
    const refused = replyText(await h.click(operator, second.confirm));
    expect(refused).toMatch(/^The price list could not be read from the service just now/);
    expect(orders(h)).toHaveLength(1);
  });

  it("never decides on a cached list whose period has ended, even within its cache_ttl", async () => {
    const h = await setup({
      client: { dispatcher: headersTimeoutDispatcher(150) },
      settings: { confirmCheckMs: 150 },
    });
    // The list's current 5-minute period (Day 06-18) ends at 18:00 UTC on the bot's clock.
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    h.clock.advance(Date.parse(`${today}T17:59:50.000Z`) - h.clock.now());
    const q = await quote(h, `energy ${freshAddress("period-ended")} 65k`);
    h.clock.advance(20_000);
    h.sandbox.inject("pricing.get", { kind: "delay", ms: 400 }, 2);
    const refused = replyText(await h.click(operator, q.confirm));
    expect(refused).toMatch(/^The price list could not be read from the service just now/);
    expect(orders(h)).toEqual([]);
  });
});

describe("Confirm re-checks the deny list", () => {
  it("refuses an address put on the deny list after its quote, naming category and reason", async () => {
    // The case 3: no watch, no stored verdict: only the check at Confirm can see it.
    const h = await setup();
    const address = freshAddress("denied-later");
    const q = await quote(h, `energy ${address} 65k`);
    h.sandbox.screening.addToList("aml_risk", address, {
      severity: "BLOCK",
      reason_code: "OFAC_SDN",
      label: "Sanctions list",
    });
    const refused = replyText(await h.click(operator, q.confirm));
    expect(refused).toContain("is on the deny list (aml_risk, BLOCK: Sanctions list)");
    expect(refused).toContain("OFAC_SDN");
    expect(refused).toContain("Nothing was ordered.");
    expect(orders(h)).toEqual([]);
    expect(h.sandbox.calls("compliance.batch").at(-1)?.body).toEqual({ addresses: [address] });
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
  });

  it("refuses a Host Mode start whose address was put on the deny list after its quote", async () => {
    const h = await setup();
    const address = freshAddress("host-denied-later");
    const q = await quote(h, `host start ${address}`);
    h.sandbox.screening.addToList("usdt_frozen", address);
    const refused = replyText(await h.click(operator, q.confirm));
    expect(refused).toContain("is frozen by the stablecoin issuer (usdt_frozen)");
    expect(refused).toContain("Nothing was started.");
    expect(h.sandbox.calls("host.add")).toEqual([]);
    expect(h.sandbox.calls("host.infinitystart")).toEqual([]);
  });

  it("refuses in one line when the deny list cannot be checked in time", async () => {
    const h = await setup();
    const q = await quote(h, `energy ${freshAddress("deny-down")} 65k`);
    h.sandbox.screening.setComplianceUnavailable(true);
    const refused = replyText(await h.click(operator, q.confirm));
    expect(refused).toMatch(/^The deny list could not be checked just now \(.+\), and the bot never spends/);
    expect(refused.split("\n")).toHaveLength(1);
    expect(orders(h)).toEqual([]);
  });
});

describe("the daily cap at the UTC day boundary", () => {
  it("a day's total counts until 00:00 UTC, and the next day starts from nothing", async () => {
    const h = await setup({ settings: { dailyLimitTrx: "4" } });
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    h.clock.advance(Date.parse(`${today}T23:59:40.000Z`) - h.clock.now());
    await h.click(operator, (await quote(h, `energy ${freshAddress("day")} 65k`)).confirm);
    expect(orders(h)).toHaveLength(1);
    const refused = await h.run(operator, `energy ${freshAddress("day")} 65k`);
    expect(replyText(refused)).toMatch(/only 0\.88 TRX is left today of your daily limit of 4 TRX/);

    h.clock.advance(30_000);
    const next = await quote(h, `energy ${freshAddress("day")} 65k`);
    expect(replyText(await h.click(operator, next.confirm))).toContain("Energy delegated");
    expect(orders(h)).toHaveLength(2);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(48 * 65_000);
  });
});

describe("one price list", () => {
  it("prices and a quote agree after the price list changes", async () => {
    const h = await setup();
    const before = await quote(h, `energy ${freshAddress("one-list")} 65k`);
    expect(replyText(before.reply)).toContain("Unit price: 48 SUN per energy");
    h.sandbox.prices.raiseEnergy(10);
    const prices = replyText(await h.run(viewer, "prices energy_5m"));
    const after = replyText((await quote(h, `energy ${freshAddress("one-list")} 65k`)).reply);
    // The tier of the period marked current ("▶"), as `prices` lists it.
    const shown = /▶ Day 06-18[^\n]*\n\s+61,000–199,999: (\d+) SUN/.exec(prices)?.[1];
    const quoted = /Unit price: (\d+) SUN/.exec(after)?.[1];
    expect(quoted).toBe(shown);

    // A Confirm's live read renews the one cache: both show the new price at once.
    h.sandbox.prices.raiseEnergy(5);
    await h.click(
      operator,
      tokenOf(await h.run(operator, `energy ${freshAddress("one-list")} 65k`), /^Confirm/),
    );
    expect(replyText(await h.run(viewer, "prices energy_5m"))).toMatch(
      /▶ Day 06-18.*\n\s+61,000–199,999: 63 SUN/,
    );
    expect(replyText((await quote(h, `energy ${freshAddress("one-list")} 65k`)).reply)).toContain(
      "Unit price: 63 SUN per energy",
    );
  });
});
