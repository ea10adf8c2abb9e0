import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../../../src/service/limiter.js";
import { RATE_BUCKETS } from "../../../src/service/rate-limits.js";
import { operator, replyButtons, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * The deny-list check before a spend never makes a person wait on the open lookup's limit
 * (10/s, 300/min per IP): with no slot free right now it asks the batch endpoint for the one
 * address instead. Here the open lookup allows one call a minute, so the second quote has none.
 */
const spend = useSpendHarness();

async function setup() {
  const limiter = createRateLimiter({
    keyPrefix: "test:",
    windows: { ...RATE_BUCKETS, compliance_open: [{ points: 1, durationMs: 60_000 }] },
  });
  return spend.setup({ client: { limiter } });
}

describe("deny-list preflight under the open lookup's limit", () => {
  it("checks through the batch endpoint and still offers Confirm at once", async () => {
    const h = await setup();
    await quote(h, `energy ${freshAddress()} 65k`);
    // Waiting for the open lookup would take a minute, past the test's timeout.
    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toContain("Deny list: clean (not on any deny list)");
    expect(replyButtons(reply)).toHaveLength(2);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(1);
    expect(h.sandbox.calls("compliance.batch").map((c) => c.body)).toEqual([
      { addresses: [expect.any(String)] },
    ]);
  });

  it("still refuses a deny-listed address found through the batch endpoint", async () => {
    const h = await setup();
    await quote(h, `energy ${freshAddress()} 65k`);
    const address = freshAddress();
    h.sandbox.screening.addToList("aml_risk", address, { severity: "BLOCK", label: "Ransomware wallet" });
    const reply = await h.run(operator, `energy ${address} 65k`);
    expect(replyText(reply)).toBe(
      `Refused: ${address} is on the deny list (aml_risk, BLOCK: Ransomware wallet). Nothing was ordered.`,
    );
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(1);
  });
});
