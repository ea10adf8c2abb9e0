import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { UNKNOWN_YET_LINE } from "../../../src/core/energy/reconcile-order5m.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import type { SandboxReply } from "../../../src/sandbox/router.js";
import { headersTimeoutDispatcher, operator, replyText, trackedWork } from "../../support/core-harness.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
const START_SUN = 500 * SUN_PER_TRX;
const DAY_COST_SUN = 48 * 65_000;

const detail = (
  status: number,
  code: number,
  msg: string,
  headers?: Record<string, string>,
): SandboxReply => ({
  status,
  json: { detail: { code, msg } },
  ...(headers && { headers }),
});

/** Quotes 65k for a fresh address; `before` runs between the quote and the click. */
async function confirmWith(h: SpendHarness, before: () => void = () => {}) {
  const address = freshAddress("errors");
  const { confirm } = await quote(h, `energy ${address} 65k`);
  before();
  const reply = await h.click(operator, confirm);
  return { address, reply, text: replyText(reply) };
}

async function expectNothingCharged(h: SpendHarness, line: string) {
  expect(h.sandbox.energy.orders()).toEqual([]);
  expect(h.sandbox.account.balanceSun).toBe(START_SUN);
  expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(0);
  const [entry] = await readAudit(h.store, 1);
  expect(entry).toMatchObject({ result: "failed", message: line, verb: "energy" });
  expect(trackedWork(h)).toEqual([]);
}

/** The outcome the reconciler posted into the conversation. */
async function waitForOutcome(h: SpendHarness) {
  await h.waitFor(
    () => h.notifications.some((n) => /Energy (delegated|order)/.test(replyText(n.reply))),
    "the reconciled outcome",
  );
  return h.notifications.find((n) => /Energy (delegated|order)/.test(replyText(n.reply)))!.reply;
}

describe("energy Confirm: service refusals, each one line saying nothing was charged", () => {
  it("1004 insufficient funds (the balance fell after the quote)", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () => {
      h.sandbox.account.balanceSun = SUN_PER_TRX;
    });
    expect(text).toBe(
      "Not ordered: insufficient funds on the service account (code 1004). Nothing was charged. Top up the deposit address, then run energy again.",
    );
    expect(h.sandbox.calls("order5m.create")[0]?.status).toBe(403);
    h.sandbox.account.balanceSun = START_SUN;
    await expectNothingCharged(h, text);
  });

  it("1003 amount out of range", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", {
        kind: "reply",
        reply: detail(400, 1003, "Energy amount must be between 61000 and 650000"),
      }),
    );
    expect(text).toBe(
      "Not ordered: the service refused the amount (code 1003: Energy amount must be between 61000 and 650000). Nothing was charged.",
    );
    await expectNothingCharged(h, text);
  });

  it("1005 payer address not configured", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () =>
      h.sandbox.energy.setPayerConfigured(h.sandbox.account, false),
    );
    expect(text).toBe(
      "Not ordered: the service account has no payer address configured (code 1005); an admin must set it on the service. Nothing was charged.",
    );
    await expectNothingCharged(h, text);
  });

  it("403 1005 blocked key", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () => {
      h.sandbox.account.blocked = true;
    });
    expect(text).toBe(
      "Not ordered: the service has blocked the bot's API key (code 1005); an admin should check SERVICE_API_KEY and SERVICE_REAL_IP. Nothing was charged.",
    );
    await expectNothingCharged(h, text);
  });

  it("5003 pools at capacity: suggests a retry", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () => h.sandbox.energy.setPoolsAtCapacity(true));
    expect(text).toBe(
      "Not ordered: the energy pools are at capacity (code 5003). Nothing was charged. Try again in a few seconds.",
    );
    await expectNothingCharged(h, text);
  });

  it("401 key or IP not accepted", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", {
        kind: "reply",
        reply: { status: 401, json: { detail: "Invalid API key or IP address not whitelisted" } },
      }),
    );
    expect(text).toBe(
      "Not ordered: the service did not accept the bot's API key or IP (HTTP 401); an admin should check SERVICE_API_KEY and SERVICE_REAL_IP. Nothing was charged.",
    );
    await expectNothingCharged(h, text);
  });

  it("429 rate limit: nothing charged, wait as the service says", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", {
        kind: "reply",
        reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "2" } },
      }),
    );
    expect(text).toBe(
      "Not ordered: the service is busy (rate limit). Nothing was charged. Try again in 2 s.",
    );
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    await expectNothingCharged(h, text);
  });

  it("5000 internal error: does not claim that nothing was charged, then reconciles with the same key", async () => {
    const h = await spend.setup();
    const { address, text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", { kind: "reply", reply: detail(500, 5000, "Internal error") }),
    );
    expect(text).toBe(UNKNOWN_YET_LINE);
    // The reconciler asks again with the same key; this time the service places the order.
    await h.waitFor(
      () => h.notifications.some((n) => /Energy delegated/.test(replyText(n.reply))),
      "the outcome",
    );
    const calls = h.sandbox.calls("order5m.create");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.headers["x-idempotency-key"]).toBe(calls[0]?.headers["x-idempotency-key"]);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
  });
});

describe("energy Confirm: lost answers are resent once with the same key", () => {
  it("a timeout is resent once with the same key: one order, one charge", async () => {
    const h = await spend.setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const { address, text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", { kind: "delay", ms: 400 }),
    );
    expect(text).toContain("Energy delegated");
    const calls = h.sandbox.calls("order5m.create");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.headers["x-idempotency-key"]).toBe(calls[0]?.headers["x-idempotency-key"]);
    // The delayed first request reaches the service after the resend: answered from its cache.
    await h.waitFor(() => calls[0]?.status === 208, "the delayed first request to be answered 208");
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - DAY_COST_SUN);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
  });

  it("a connection reset is resent once with the same key", async () => {
    const h = await spend.setup();
    const { text } = await confirmWith(h, () => h.sandbox.inject("order5m.create", { kind: "reset" }));
    expect(text).toContain("Energy delegated");
    expect(h.sandbox.calls("order5m.create")).toHaveLength(2);
    expect(h.sandbox.energy.orders()).toHaveLength(1);
  });

  it("two timeouts: says once that the outcome is not known yet, then reconciles it: one order, reported, counted", async () => {
    const h = await spend.setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const { address, text } = await confirmWith(h, () =>
      h.sandbox.inject("order5m.create", { kind: "delay", ms: 300 }, 2),
    );
    expect(text).toBe(UNKNOWN_YET_LINE);
    const outcome = await waitForOutcome(h);
    expect(replyText(outcome)).toContain("Energy order (already placed)");
    const calls = h.sandbox.calls("order5m.create");
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(new Set(calls.map((c) => c.headers["x-idempotency-key"])).size).toBe(1);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - DAY_COST_SUN);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
    const [entry] = await readAudit(h.store, 1);
    expect(entry?.result).toBe("ok");
    await new Promise((r) => setTimeout(r, 300));
    const outcomes = h.notifications.filter((n) => /Energy (delegated|order)/.test(replyText(n.reply)));
    expect(outcomes).toHaveLength(1);
  });

  it("a timeout, then 429 on the resend: the outcome stays unknown, never 'nothing was charged'", async () => {
    const h = await spend.setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const { address, text } = await confirmWith(h, () => {
      h.sandbox.inject("order5m.create", { kind: "delay", ms: 400 });
      h.sandbox.inject("order5m.create", {
        kind: "reply",
        reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "1" } },
      });
    });
    expect(text).toBe(UNKNOWN_YET_LINE);
    expect(replyText(await waitForOutcome(h))).toMatch(/Energy (delegated|order)/);
    const calls = h.sandbox.calls("order5m.create");
    await h.waitFor(() => calls.every((c) => c.status !== 0), "every request to be answered");
    expect(calls[1]?.status).toBe(429);
    expect(calls.filter((c) => c.status === 200)).toHaveLength(1);
    // The first send was placed and charged: the line must not invite a second order.
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - DAY_COST_SUN);
  });

  it("409 duplicate_request_processing: waits retry_after and shows the original order (208)", async () => {
    // The order takes 400 ms; the client gives up after 150 ms, resends (409: still running),
    // waits the second the service asks for and gets the original order back (208).
    const h = await spend.setup({
      client: { dispatcher: headersTimeoutDispatcher(150) },
      sandbox: { energy: { order5mLatencyMs: 400 } },
    });
    const { address, reply, text } = await confirmWith(h);
    expect(h.sandbox.calls("order5m.create").map((c) => c.status)).toEqual([200, 409, 208]);
    expect(text).toContain("Energy order (already placed)");
    expect(text).toContain("The service had already placed this order; it was not charged again.");
    const [order, ...others] = h.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
    expect(others).toEqual([]);
    expect(text).toContain(`Order: ${order?.orderId}`);
    expect(reply.replacesOriginal).toBe(true);
    expect(h.sandbox.account.balanceSun).toBe(START_SUN - DAY_COST_SUN);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
  });
});
