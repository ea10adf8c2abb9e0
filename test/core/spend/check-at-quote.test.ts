import { describe, expect, it } from "vitest";
import { quoteEnergy } from "../../../src/core/pricing/quote.js";
import { checkAtQuote } from "../../../src/core/spend/check-at-quote.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { operator } from "../../support/core-harness.js";
import { freshAddress, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The first quote's checks as one pipeline function (every command that quotes a spend calls it):
 * preflight → price → caps → balance, in that order, each refusal one line and nothing asked after
 * it. The real core and the sandbox over HTTP.
 */
const spend = useSpendHarness();

const energyChecks = (h: Awaited<ReturnType<typeof spend.setup>>, address: string) => ({
  actor: operator,
  word: "ordered" as const,
  preflight: address,
  price: () => quoteEnergy(h.deps, address, 65_000),
  costOf: (q: { costTrx: string }) => q.costTrx,
  activation: [address],
});

describe("checkAtQuote", () => {
  it("a deny-listed address: the deny list's line, and no price or balance asked", async () => {
    const h = await spend.setup();
    const address = freshAddress();
    h.sandbox.screening.addToList("aml_risk", address, { severity: "BLOCK", label: "Ransomware wallet" });
    const checked = await checkAtQuote(h.deps, energyChecks(h, address));
    expect(checked).toEqual({
      ok: false,
      line: `Refused: ${address} is on the deny list (aml_risk, BLOCK: Ransomware wallet). Nothing was ordered.`,
    });
    expect(h.sandbox.calls().map((c) => c.endpoint)).toEqual(["compliance.lookup"]);
  });

  it("above a cap: the cap's line, and the balance is not read", async () => {
    const h = await spend.setup({ settings: { maxOrderTrx: "3" } });
    const checked = await checkAtQuote(h.deps, energyChecks(h, freshAddress()));
    expect(checked).toEqual({
      ok: false,
      line: "This order would cost 3.12 TRX, above the cap of 3 TRX per order (OPS_MAX_ORDER_TRX).",
    });
    expect(h.sandbox.calls("userinfo.get")).toEqual([]);
  });

  it("within the caps: the quote, the verdict and the balance, covered or not", async () => {
    const h = await spend.setup();
    const covered = await checkAtQuote(h.deps, energyChecks(h, freshAddress()));
    expect(covered).toMatchObject({ ok: true, quote: { costTrx: "3.12" }, covered: true, warnings: [] });
    expect(covered.ok && covered.verdict).toMatchObject({ blocked: false, category: "clean" });

    const poor = await spend.setup();
    poor.sandbox.account.balanceSun = 2 * SUN_PER_TRX;
    const short = await checkAtQuote(poor.deps, energyChecks(poor, freshAddress()));
    expect(short).toMatchObject({ ok: true, covered: false, balance: { known: true, balanceTrx: "2" } });
  });

  it("a standing order's quote reads no balance", async () => {
    const h = await spend.setup();
    const checked = await checkAtQuote(h.deps, { ...energyChecks(h, freshAddress()), balance: false });
    expect(checked).toMatchObject({ ok: true, quote: { costTrx: "3.12" } });
    expect(checked).not.toHaveProperty("balance");
    expect(h.sandbox.calls("userinfo.get")).toEqual([]);
  });
});
