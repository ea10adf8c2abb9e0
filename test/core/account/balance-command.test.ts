import { describe, expect, it } from "vitest";
import { createBalanceCommand } from "../../../src/core/account/balance-command.js";
import { cancelActionHandler } from "../../../src/core/actions.js";
import { helpCommand } from "../../../src/core/help.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createRateLimiter } from "../../../src/service/limiter.js";
import { RATE_BUCKETS } from "../../../src/service/rate-limits.js";
import { type CoreHarness, replyText, useCoreHarness, viewer } from "../../support/core-harness.js";

const harness = useCoreHarness();

async function setup(): Promise<CoreHarness> {
  const h = await harness.setup();
  Object.assign(h.sandbox.account.totals, { delegations: 10, energy: 650_000, spentSun: 26 * SUN_PER_TRX });
  h.sandbox.account.balanceSun = 123_456_789;
  return h;
}

describe("balance", () => {
  it("shows balance, delegations, energy, TRX spent, deposits, savings and the TRX price", async () => {
    const h = await setup();
    const reply = await h.run(viewer, "balance");
    expect(reply.visibility).toBe("public");
    expect(reply.summary).toBe("Balance 123.456789 TRX");
    const text = replyText(reply);
    // 123.456789 × 0.3 = 37.0370367 → $37.04, computed on decimals.
    expect(text).toContain("Balance: 123.456789 TRX (≈ $37.04)");
    expect(text).toContain("Delegations: 10");
    expect(text).toContain("Energy delegated: 650,000");
    expect(text).toContain("TRX spent: 26 TRX");
    expect(text).toContain("Deposits: 1,000 TRX");
    expect(text).toContain("Saved: 60% · $11.70");
    expect(text).toContain("Average rate: 40 SUN/energy");
    expect(text).toContain("TRX price: $0.3");
    expect(text).toMatch(/Service time \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · read <1 s ago/);
    expect(text).not.toContain("This copy is");
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual([200]);
  });

  it("calls userinfo once for two balances in quick succession, and for two at the same moment", async () => {
    const h = await setup();
    await h.run(viewer, "balance");
    h.clock.advance(5_000);
    const second = replyText(await h.run(viewer, "balance"));
    expect(second).toContain("read 5 s ago");
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);

    const fresh = await setup();
    await Promise.all([
      fresh.run(viewer, "balance"),
      fresh.run(viewer, "balance"),
      fresh.run(viewer, "balance"),
    ]);
    expect(fresh.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("reads again once the copy is 15 s old, and shows the new numbers", async () => {
    const h = await setup();
    await h.run(viewer, "balance");
    h.sandbox.account.balanceSun = 7 * SUN_PER_TRX;
    h.clock.advance(15_000);
    expect((await h.run(viewer, "balance")).summary).toBe("Balance 7 TRX");
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(2);
  });

  it("never earns a 429 when spammed for two minutes, with the service enforcing its 6 per minute", async () => {
    let h: CoreHarness | undefined;
    h = await harness.setup({
      sandbox: { enforceRateLimits: true, now: () => (h ? h.clock.now() : Date.now()) },
    });
    for (let i = 0; i < 60; i += 1) {
      expect((await h.run(viewer, "balance")).visibility).toBe("public");
      h.clock.advance(2_000);
    }
    // One read per 15 s of copies: 8 in 120 s, at most 4 in any minute.
    const statuses = h.sandbox.calls("userinfo.get").map((c) => c.status);
    expect(statuses).toEqual(Array(8).fill(200));
  });

  it("serves the older copy with its age when the limiter would make it wait, then refreshes behind it", async () => {
    let h: CoreHarness | undefined;
    const limiter = createRateLimiter({
      keyPrefix: "test:",
      now: () => (h ? h.clock.now() : Date.now()),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 10))),
      windows: { ...RATE_BUCKETS, userinfo: [{ points: 1, durationMs: 60_000 }] },
    });
    const balance = createBalanceCommand({ waitForFreshMs: 50 });
    h = await harness.setup({
      client: { limiter },
      registry: { commands: [helpCommand, balance], actions: [cancelActionHandler] },
    });
    h.sandbox.account.balanceSun = 10 * SUN_PER_TRX;
    expect((await h.run(viewer, "balance")).summary).toBe("Balance 10 TRX");
    h.sandbox.account.balanceSun = 20 * SUN_PER_TRX;
    h.clock.advance(20_000);
    const stale = await h.run(viewer, "balance");
    expect(stale.summary).toBe("Balance 10 TRX");
    expect(replyText(stale)).toContain("This copy is 20 s old: the service allows 6 account reads a minute");
    // The limiter holds the refresh: nothing reached the service yet.
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
    h.clock.advance(41_000);
    const current = h;
    await current.waitFor(() => current.sandbox.calls("userinfo.get")[1]?.status === 200, "the held refresh");
    // Its reading is stored right after the reply.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The refresh fills the cache: the next ask shows the new value without another call.
    const after = await h.run(viewer, "balance");
    expect(after.summary).toBe("Balance 20 TRX");
    expect(replyText(after)).not.toContain("This copy is");
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(2);
  });

  it("serves the older copy with the reason when the service fails, and one line when there is none", async () => {
    const h = await setup();
    h.sandbox.inject("userinfo.get", {
      kind: "reply",
      reply: {
        status: 429,
        json: { message: "API rate limit exceeded", request_id: "r1" },
        headers: { "retry-after": "30" },
      },
    });
    const first = await h.run(viewer, "balance");
    expect(first).toMatchObject({
      visibility: "private",
      summary: "The service is busy (rate limit); try again in 30 s.",
    });
    await h.run(viewer, "balance");
    h.clock.advance(16_000);
    h.sandbox.inject("userinfo.get", {
      kind: "reply",
      reply: { status: 500, json: { status: "error", message: "db down" } },
    });
    const stale = await h.run(viewer, "balance");
    expect(stale.visibility).toBe("public");
    expect(replyText(stale)).toContain(
      "This copy is 16 s old: the service had a problem (HTTP 500); try again later.",
    );
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual([429, 200, 500]);
  });

  it("takes no arguments", async () => {
    const h = await setup();
    expect((await h.run(viewer, "balance now")).summary).toBe(
      'balance takes no arguments: type just "balance"',
    );
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(0);
  });
});
