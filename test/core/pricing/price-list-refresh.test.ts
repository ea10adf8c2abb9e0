import { describe, expect, it } from "vitest";
import { replyText } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/** The price list honours its cache_ttl (60 s in the sandbox) and is renewed behind the quotes. */
const spend = useSpendHarness();

describe("price list for quotes", () => {
  it("is renewed in the background past half its cache_ttl, so quotes keep using a current copy", async () => {
    const h = await spend.setup();
    await quote(h, `energy ${freshAddress()} 65k`);
    h.clock.advance(20_000);
    await quote(h, `energy ${freshAddress()} 65k`);
    expect(h.sandbox.calls("pricing.get")).toHaveLength(1);

    h.clock.advance(15_000);
    h.sandboxTime.set("2025-03-01T19:30:00.000Z");
    // 35 s old: this quote still uses the cached copy, and a new one is fetched behind it.
    expect(replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply)).toContain("Period: Day 06-18");
    await h.waitFor(() => h.sandbox.calls("pricing.get")[1]?.status === 200, "the background renewal");
    await new Promise((resolve) => setTimeout(resolve, 50));

    // 63 s after the first fetch that copy has expired; the renewed one (28 s old) is in use.
    h.clock.advance(28_000);
    expect(replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply)).toContain(
      "Period: Evening 18-24",
    );
    expect(h.sandbox.calls("pricing.get")).toHaveLength(2);
  });
});
