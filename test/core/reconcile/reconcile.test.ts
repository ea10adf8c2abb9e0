import { describe, expect, it } from "vitest";
import { buildDigest } from "../../../src/core/digest/summary.js";
import { reconcileTick } from "../../../src/core/reconcile/reconcile.js";
import { charge } from "../../../src/sandbox/accounts.js";
import { operator, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The daily reconciliation: the ledger's total between two first-of-the-day readings of the
 * account, against how much the service's `total_trx_spent` grew between them. Spends of the bot
 * alone agree; a charge made outside the bot raises one alert naming both figures.
 */
const spend = useSpendHarness();
const ALERTS = { platform: "slack" as const, id: "C0ALERTS" };
const HOUR = 3_600_000;

async function dayWithAnOrder(outside: number) {
  const h = await spend.setup();
  expect(await reconcileTick(h.deps, [ALERTS])).toBeUndefined();
  const q = await quote(h, `energy ${freshAddress("reconcile")} 65k`);
  await h.click(operator, q.confirm);
  if (outside > 0) charge(h.sandbox.account, outside);
  // The next UTC day's first reading closes the day.
  const day = new Date(h.clock.now()).toISOString().slice(0, 10);
  h.clock.advance(Date.parse(`${day}T00:10:00Z`) + 24 * HOUR - h.clock.now());
  return { h, day, result: await reconcileTick(h.deps, [ALERTS]) };
}

describe("the ledger reconciled with the service", () => {
  it("agrees when every charge went through the bot, and raises nothing", async () => {
    const { h, result } = await dayWithAnOrder(0);
    expect(result).toMatchObject({ differs: false });
    expect(result?.ledgerTrx).toBe(result?.serviceTrx);
    expect(Number(result?.ledgerTrx)).toBeGreaterThan(0);

    expect(h.notifications.filter((n) => /disagree/.test(replyText(n.reply)))).toHaveLength(0);
    // A second tick of the same day compares nothing again.
    expect(await reconcileTick(h.deps, [ALERTS])).toBeUndefined();
  });

  it("raises one alert naming both figures when the service charged more than the ledger holds", async () => {
    const { h, day, result } = await dayWithAnOrder(7_000_000);
    expect(result?.differs).toBe(true);
    expect(Number(result?.serviceTrx) - Number(result?.ledgerTrx)).toBeCloseTo(7, 6);

    const alerts = h.notifications.filter((n) => /disagree/.test(replyText(n.reply)));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.conversation).toEqual(ALERTS);
    expect(replyText(alerts[0]!.reply)).toContain(`the ledger ${result?.ledgerTrx} TRX`);
    expect(replyText(alerts[0]!.reply)).toContain(`total_trx_spent +${result?.serviceTrx} TRX`);
    const digest = await buildDigest(h.deps, day);
    expect(digest.reconciliation?.differs).toBe(true);
  });
});
