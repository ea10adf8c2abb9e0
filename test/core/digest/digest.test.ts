import { describe, expect, it } from "vitest";
import { buildDigest } from "../../../src/core/digest/summary.js";
import { markDelivered } from "../../../src/core/energy/delivery-watch.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { DEMO_ADDRESSES } from "../../../src/sandbox/families/screening/demo-addresses.js";
import { operator, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The digest against a day of known activity, made through the real commands, buttons and
 * notification router over the sandbox: two 5-minute energy orders (one confirmed on-chain), two
 * screenings, two deny-list refusals, Host Mode started and two cycles called back.
 */
const spend = useSpendHarness();
const today = () => new Date().toISOString().slice(0, 10);

async function knownDay(h: SpendHarness) {
  const orders: string[] = [];
  for (const amount of ["65k", "131k"]) {
    const q = await quote(h, `energy ${freshAddress("digest")} ${amount}`);
    await h.click(operator, q.confirm);
    orders.push(h.sandbox.energy.orders().at(-1)!.orderId);
  }
  await markDelivered(h.store, orders[0]!);
  await h.run(operator, `screen ${DEMO_ADDRESSES.lowRisk}`);
  await h.run(operator, `screen ${DEMO_ADDRESSES.highRisk}`);
  await h.run(operator, `energy ${DEMO_ADDRESSES.sanctioned} 65k`);
  await h.run(operator, `host start ${DEMO_ADDRESSES.usdtContract}`);
  const host = freshAddress("digest-host");
  const start = await quote(h, `host start ${host}`);
  await h.click(operator, start.confirm);
  const router = createNotificationRouter(h.deps, { alerts: [], originGraceMs: [] });
  for (const [i, charged] of ["4.0000", "2.0000"].entries()) {
    const cycle = {
      event: "host.cycle" as const,
      address: host,
      order_id: `hc-${i}`,
      hash: `h${i}`,
      charged,
    };
    await router.route(cycle, { deferrals: 0 });
    await router.route(cycle, { deferrals: 0 }); // a replayed callback counts once
  }
  return { orders };
}

describe("digest", () => {
  it("sums a day's spends by person and kind, and lists what needs attention", async () => {
    const h = await spend.setup();
    const { orders } = await knownDay(h);
    const digest = await buildDigest(h.deps, today());
    const energyPaid = h.sandbox.energy.orders().reduce((sum, o) => sum + o.costSun, 0);

    expect(digest.empty).toBe(false);
    const byKind = (kind: string) => digest.spends.filter((s) => s.kind === kind);
    expect(byKind("energy").map((s) => s.who)).toEqual(["slack:U0OPER", "slack:U0OPER"]);
    expect(byKind("energy").reduce((n, s) => n + Number(s.trx) * 1e6, 0)).toBeCloseTo(energyPaid, 0);
    expect(byKind("host").map((s) => [s.who, s.trx.toFixed()])).toEqual([
      ["slack:U0OPER", "4"],
      ["slack:U0OPER", "2"],
    ]);
    expect(byKind("screening")).toHaveLength(2);
    expect(digest.energyDelegated).toBe(65_000 + 131_000);
    expect(digest.unconfirmed.map((o) => o.orderId)).toEqual([orders[1]]);
    expect([...digest.riskLevels.values()].reduce((a, b) => a + b, 0)).toBe(2);
    expect(digest.refusals.map((r) => r.category).sort()).toEqual(["aml_risk", "smart_contract"]);
    // Burning: 196,000 energy × 100 SUN (the sandbox's network_energy_fee) = 19.6 TRX.
    expect(digest.saving.burnTrx?.toFixed()).toBe("19.6");
    expect(digest.saving.savedTrx?.toFixed()).toBe(
      digest.saving.burnTrx?.minus(digest.saving.paidTrx).toFixed(),
    );

    const text = replyText(await h.run(operator, "digest today"));
    expect(text).toContain(`Daily digest for ${today()} (UTC)`);
    expect(text).toMatch(
      /• slack:U0OPER: .* — energy .* \(2\), Host Mode cycles 6 TRX \(2\), screenings .* \(2\)/,
    );
    expect(text).toContain("Energy delegated: 196,000 energy");
    expect(text).toContain(`Orders not confirmed on-chain: 1: ${orders[1]}`);
    expect(text).toMatch(/Blocked-address refusals: 2: /);
    expect(text).toMatch(/How: burning TRX for 196,000 energy costs 196,000 × 100 SUN/);
  });

  it("an empty day says no activity; a bad day is one line", async () => {
    const h = await spend.setup();
    expect(replyText(await h.run(operator, "digest yesterday"))).toMatch(/No activity on \d{4}-\d\d-\d\d\./);
    const bad = await h.run(operator, "digest 2025-02-30");
    expect(bad.visibility).toBe("private");
    expect(replyText(bad)).toBe(
      '"2025-02-30" is not a day: use digest, digest today, digest yesterday or digest YYYY-MM-DD (a UTC day of the last 30 days)',
    );
    expect(replyText(await h.run(operator, "digest today tomorrow"))).toMatch(/^digest takes one day/);
  });
});
