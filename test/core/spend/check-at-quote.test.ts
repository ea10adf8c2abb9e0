import { describe, expect, it } from "vitest";
import type { CoreDeps } from "../../../src/core/deps.js";
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
  price: (reads: Parameters<typeof quoteEnergy>[3]) => quoteEnergy(h.deps, address, 65_000, reads),
  prices: ["energy_5m" as const],
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

  it("reads the store once, while the deny list answers, and asks the service nothing more", async () => {
    const h = await spend.setup({ settings: { dailyLimitTrx: "100" } });
    // A first quote fills the price list cache and the balance reading.
    await checkAtQuote(h.deps, energyChecks(h, freshAddress()));
    const seen: string[] = [];
    const store = new Proxy(h.deps.store, {
      get(target, name, receiver) {
        const method = Reflect.get(target, name, receiver);
        if (typeof method !== "function") return method;
        return (...args: unknown[]) => {
          seen.push(`${String(name)} ${JSON.stringify(args[0])}`);
          return method.apply(target, args);
        };
      },
    });
    const compliance = h.deps.service.compliance;
    const lookup: typeof compliance.lookup = async (...args) => {
      const verdict = await compliance.lookup(...args);
      seen.push("deny list answered");
      return verdict;
    };
    const deps: CoreDeps = {
      ...h.deps,
      store,
      service: { ...h.deps.service, compliance: { ...compliance, lookup } },
    };
    const calls = h.sandbox.calls().length;
    const address = freshAddress();

    const checked = await checkAtQuote(deps, energyChecks(h, address));

    expect(checked).toMatchObject({ ok: true, quote: { costTrx: "3.12" }, covered: true });
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    const keys = [
      "pricing:service:energy_5m",
      "activation:fee-sun",
      `activation:active:${address}`,
      `spend:${operator.platform}:${operator.userId}:${day}`,
      "balance:userinfo",
      "balance:spent-sun",
    ];
    expect(seen).toEqual([`getMany ${JSON.stringify(keys)}`, "deny list answered"]);
    expect(
      h.sandbox
        .calls()
        .slice(calls)
        .map((c) => c.endpoint),
    ).toEqual(["compliance.lookup"]);
  });
});
