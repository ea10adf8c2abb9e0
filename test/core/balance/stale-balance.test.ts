import { describe, expect, it } from "vitest";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createRateLimiter } from "../../../src/service/limiter.js";
import {
  type CoreHarness,
  type CoreHarnessOptions,
  operator,
  replyButtons,
  replyText,
  useCoreHarness,
} from "../../support/core-harness.js";
import { freshAddress, quote } from "../../support/spend-harness.js";

/**
 * A stale balance reading never refuses a spend (issue 44, finding 2; CONTRACT: never refused on
 * a reading older than the last moment the balance could have been read). Right after a top-up the
 * last reading (2 s old) does not cover the order: the bot reads again before it refuses, and
 * when no read is free it answers with the Confirm, which decides on the live balance.
 */
const harness = useCoreHarness();

async function limitedHarness(extra: CoreHarnessOptions = {}): Promise<CoreHarness> {
  let h: CoreHarness | undefined;
  const now = () => (h ? h.clock.now() : Date.now());
  const limiter = createRateLimiter({
    keyPrefix: "test:",
    now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 10))),
  });
  h = await harness.setup({
    sandbox: { enforceRateLimits: true, now, energy: { order5mLatencyMs: 5, webhookDelayMs: 5 } },
    client: { limiter },
    ...extra,
  });
  return h;
}

const confirmOffered = (reply: Parameters<typeof replyButtons>[0]) =>
  replyButtons(reply).some((b) => /^Confirm /.test(b.label));

describe("a quote right after a top-up", () => {
  it("reads the balance again before refusing: the fresh reading covers it, and the Confirm is offered", async () => {
    const h = await limitedHarness();
    h.sandbox.account.balanceSun = 1 * SUN_PER_TRX;
    const low = await h.run(operator, `energy ${freshAddress("before-topup")} 65k`);
    expect(replyText(low)).toContain("does NOT cover it");
    expect(confirmOffered(low)).toBe(false);

    h.sandbox.account.balanceSun = 100_000 * SUN_PER_TRX;
    h.clock.advance(2_000);
    const { reply, confirm } = await quote(h, `energy ${freshAddress("after-topup")} 65k`);
    expect(replyText(reply)).toContain("Balance: 100,000 TRX, covers it");
    expect(confirmOffered(reply)).toBe(true);
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual([200, 200]);
    expect(replyText(await h.click(operator, confirm))).toContain("Energy delegated");
  });

  it("with no read free: no refusal on the old reading; the quote says it is read again and Confirm orders", async () => {
    const h = await limitedHarness();
    h.sandbox.account.balanceSun = 1 * SUN_PER_TRX;
    expect(confirmOffered(await h.run(operator, `energy ${freshAddress("nofree-before")} 65k`))).toBe(false);
    // Another tool on this IP uses the rest of the minute's 6 reads.
    for (let i = 0; i < 5; i += 1) await h.service.account.userinfo();
    h.sandbox.account.balanceSun = 100_000 * SUN_PER_TRX;
    h.clock.advance(2_000);
    const { reply, confirm } = await quote(h, `energy ${freshAddress("nofree-after")} 65k`);
    expect(replyText(reply)).toMatch(
      /Balance: unknown \(≈ 1 TRX when read 2 s ago, which would not cover it; it is being read again, and Confirm checks the live balance\)/,
    );
    expect(confirmOffered(reply)).toBe(true);
    expect(h.sandbox.calls("userinfo.get").filter((c) => c.status !== 200)).toEqual([]);
    expect(replyText(await h.click(operator, confirm))).toContain("Energy delegated");
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a payout run's quote after a top-up offers its Confirm too", async () => {
    const h = await limitedHarness();
    h.sandbox.account.balanceSun = 1 * SUN_PER_TRX;
    const [a, b] = [freshAddress("payout-a"), freshAddress("payout-b")];
    expect(confirmOffered(await h.run(operator, `energy 65k ${a} ${b}`))).toBe(false);
    h.sandbox.account.balanceSun = 100_000 * SUN_PER_TRX;
    h.clock.advance(2_000);
    const reply = await h.run(operator, `energy 65k ${a} ${b}`);
    expect(replyText(reply)).not.toContain("does not cover");
    expect(confirmOffered(reply)).toBe(true);
  });
});
