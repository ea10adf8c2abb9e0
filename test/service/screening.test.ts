import { describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import type { Timers } from "../../src/sandbox/context.js";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { amlPriceSun } from "../../src/sandbox/price-book.js";
import { createSandbox } from "../../src/sandbox/server.js";
import { ServiceError } from "../../src/service/errors.js";
import type { ScreeningOrder } from "../../src/service/screening.js";
import { type ClientOverrides, rejection, sandboxClient, useSandboxClient } from "../support/service-kit.js";

const PRICE_SUN = amlPriceSun("provider_a");
const kit = useSandboxClient({
  sandbox: { enforceRateLimits: false, screening: { durationMs: 100, maxWaitMs: 3_000 } },
});
const api = (caller: ClientOverrides = {}) => kit.client(caller).screening;

let seq = 0;
const freshAddress = (): string => tronAddressFrom(`screening-test-${process.pid}-${seq++}`);

async function pollUntilFinal(id: string): Promise<ScreeningOrder> {
  for (let i = 0; i < 100; i += 1) {
    const order = await api().read(id);
    if (["completed", "failed", "skipped"].includes(order.order.status)) return order;
    await sleep(20);
  }
  throw new Error(`order ${id} never finished`);
}

const creates = (address: string) =>
  kit.sandbox.calls("screening.create").filter((c) => (c.body as { address?: string })?.address === address);

describe("screening.create and screening.read", () => {
  it("answers 202 with Location and a pending order with every block, then completes on polling", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const created = await api().create({ address, network: "trx", provider: "provider_a" });

    expect(created.httpStatus).toBe(202);
    expect(created.location).toBe(`/apiv2/screening/${created.order.order.client_order_id}`);
    const o = created.order;
    expect(o.order).toMatchObject({
      status: "pending",
      cache_hit: false,
      api_version: "2",
      completed_at: null,
    });
    expect(o.order.client_order_id).toMatch(/^A[0-9a-f]{14}$/);
    expect(o.order.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(o.request).toEqual({ address, network: "trx", provider: "provider_a" });
    expect(o.billing).toMatchObject({
      charged: true,
      price_usdt: "0.98",
      charged_amount: "3.266667",
      charged_currency: "TRX",
      exchange_rate: "0.3",
      payment_status: "pending",
    });
    expect(o.check).toMatchObject({ status: "pending", provider_check_id: null, checked_at: null });
    expect(o.risk).toMatchObject({ score: null, level: "none", scale: { min: 0, max: 10 } });
    expect(o.risk.policy).toBe("service-risk-v1");
    expect([o.sanctions, o.primary_entity, o.wallet.inflow_usd]).toEqual([null, null, null]);
    expect([o.exposure, o.rules, o.entities, o.sanctioned_entities]).toEqual([[], [], [], []]);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);

    const done = await pollUntilFinal(o.order.client_order_id);
    const expected = kit.sandbox.screening.scoreOf(address);
    expect(done.order.status).toBe("completed");
    expect(done.risk.score).toBe(expected.score);
    expect(done.billing.payment_status).toBe("paid");
    expect(done.check.provider_check_id).toMatch(/^chk_/);
    expect(done.exposure.length).toBe(expected.exposure.length);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
    const reads = kit.sandbox.calls("screening.read").filter((c) => c.path.endsWith(o.order.client_order_id));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((c) => c.query.format === "json")).toBe(true);
    expect(creates(address)[0]?.headers["x-idempotency-key"]).toBeUndefined();
  });

  it("waits for the result and answers 200 when it is ready in time", async () => {
    const address = kit.sandbox.screening.demoAddresses.sanctioned;
    const created = await api().create({
      address,
      network: "trx",
      provider: "provider_a",
      waitForResult: true,
    });
    expect(created.httpStatus).toBe(200);
    expect(created.location).toBeUndefined();
    const o = created.order;
    expect(o.order.status).toBe("completed");
    expect(o.risk).toMatchObject({ score: "9.80", level: "high", level_source: "computed" });
    expect(o.sanctions?.self).toBe(true);
    expect(o.sanctioned_entities.length).toBeGreaterThan(0);
    expect(o.exposure.some((e) => e.category === "sanctions")).toBe(true);
    expect(o.rules.some((r) => r.category === "sanctions" && r.level === "high")).toBe(true);
    expect(o.primary_entity?.category).toBe("sanctions");
    expect(creates(address)[0]?.body).toMatchObject({ wait_for_result: true });
  });

  it("returns the pending order (202) when the check outlasts the synchronous wait", async () => {
    const timers = manualTimers();
    const sandbox = await createSandbox({
      enforceRateLimits: false,
      timers,
      screening: { durationMs: 5_000, maxWaitMs: 150 },
    });
    try {
      const creating = sandboxClient(sandbox).screening.create({
        address: freshAddress(),
        network: "trx",
        provider: "provider_a",
        waitForResult: true,
      });
      // The service holds the answer: it timed the check (5 s) and its own wait (150 ms)...
      await Promise.race([timers.untilAsked(2), creating]);
      expect(timers.asked.map((t) => t.ms)).toEqual([5_000, 150]);
      // ...and answers when its wait runs out first, the check still pending.
      timers.asked[1]?.fire();
      const created = await creating;
      expect(created.httpStatus).toBe(202);
      expect(created.order.order.status).toBe("pending");
      expect(created.location).toContain(created.order.order.client_order_id);
    } finally {
      await sandbox.close();
    }
  });

  it("reuses a result of the same address and provider within 60 s: cache_hit, charged once", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const first = await api().create({
      address,
      network: "trx",
      provider: "provider_a",
      waitForResult: true,
    });
    const second = await api().create({ address, network: "trx", provider: "provider_a" });

    expect(second.httpStatus).toBe(200);
    expect(second.order.order.client_order_id).not.toBe(first.order.order.client_order_id);
    expect(second.order.order).toMatchObject({ status: "completed", cache_hit: true });
    expect(second.order.billing).toMatchObject({
      charged: false,
      payment_status: "not_charged",
      charged_amount: "0.000000",
    });
    expect(second.order.risk.score).toBe(first.order.risk.score);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);

    // Reuse is per account: another account pays for its own check.
    const other = kit.sandbox.accounts.add({ apiKey: `other-${address}` });
    const theirs = await api({ apiKey: other.apiKey }).create({
      address,
      network: "trx",
      provider: "provider_a",
    });
    expect(theirs.order.order.cache_hit).toBe(false);
    expect(other.balanceSun).toBe(500 * SUN_PER_TRX - PRICE_SUN);
  });

  it("skips an address that never had activity: not charged, not performed", async () => {
    const address = freshAddress();
    kit.sandbox.screening.setInactive(address);
    const before = kit.sandbox.account.balanceSun;
    const created = await api().create({ address, network: "trx", provider: "provider_a" });

    expect(created.httpStatus).toBe(200);
    expect(created.order.order).toMatchObject({
      status: "skipped",
      reason: "address_inactive",
      started_at: null,
    });
    expect(created.order.billing).toMatchObject({ charged: false, payment_status: "not_charged" });
    expect(created.order.check.status).toBe("not_performed");
    expect(created.order.precheck).toMatchObject({ activity_checked: true, activity_status: "inactive" });
    expect(created.order.risk.level).toBe("none");
    expect(kit.sandbox.account.balanceSun).toBe(before);
  });

  it("reports a failed check with its error and refunds it", async () => {
    const address = freshAddress();
    kit.sandbox.screening.setFails(address);
    const before = kit.sandbox.account.balanceSun;
    const created = await api().create({
      address,
      network: "trx",
      provider: "provider_a",
      waitForResult: true,
    });

    expect(created.order.order).toMatchObject({ status: "failed", error: "provider_error" });
    expect(created.order.check.status).toBe("failed");
    expect(created.order.billing).toMatchObject({ charged: false, payment_status: "refunded" });
    expect(created.order.risk.score).toBeNull();
    expect(kit.sandbox.account.balanceSun).toBe(before);
  });

  it("answers the same order for the same X-Idempotency-Key, charging once", async () => {
    const address = freshAddress();
    const key = `idem-${address}`;
    const before = kit.sandbox.account.balanceSun;
    const first = await api().create({
      address,
      network: "trx",
      provider: "provider_a",
      idempotencyKey: key,
    });
    const again = await api().create({
      address,
      network: "trx",
      provider: "provider_a",
      idempotencyKey: key,
    });

    expect(again.order.order.client_order_id).toBe(first.order.order.client_order_id);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
    expect(creates(address).map((c) => c.headers["x-idempotency-key"])).toEqual([key, key]);
  });

  it("resends a create after a dropped connection only when it carries an idempotency key", async () => {
    const withKey = freshAddress();
    kit.sandbox.inject("screening.create", { kind: "reset" });
    const created = await api({ maxAttempts: 2 }).create({
      address: withKey,
      network: "trx",
      provider: "provider_a",
      idempotencyKey: `retry-${withKey}`,
    });
    expect(created.httpStatus).toBe(202);
    expect(creates(withKey)).toHaveLength(2);

    const withoutKey = freshAddress();
    kit.sandbox.inject("screening.create", { kind: "reset" });
    const error = await rejection(
      api({ maxAttempts: 2 }).create({ address: withoutKey, network: "trx", provider: "provider_a" }),
    );
    expect(error).toMatchObject({ family: "screening", kind: "network", retryable: false });
    expect(creates(withoutKey)).toHaveLength(1);
  });

  it("scores on the provider's own scale without rescaling", async () => {
    const both = kit.sandbox.accounts.add({
      apiKey: "scale-account",
      providers: ["provider_a", "provider_b"],
    });
    const address = freshAddress();
    const created = await api({ apiKey: both.apiKey }).create({
      address,
      network: "btc",
      provider: "provider_b",
      waitForResult: true,
    });
    const base = kit.sandbox.screening.scoreOf(address).score;
    expect(created.order.risk.scale).toEqual({ min: 0, max: 100 });
    expect(created.order.risk.score).toBe(base === null ? null : (Number(base) * 10).toFixed(2));
    expect(created.order.billing.price_usdt).toBe("1.50");
    expect(both.balanceSun).toBe(500 * SUN_PER_TRX - amlPriceSun("provider_b"));
  });
});

describe("screening errors", () => {
  it("4001: an invalid body", async () => {
    const error = await rejection(api().create({ address: "short", network: "trx", provider: "provider_a" }));
    expect(error).toMatchObject({
      family: "screening",
      endpoint: "screening.create",
      httpStatus: 400,
      code: 4001,
    });
    expect(error.retryable).toBe(false);
  });

  it("4002: a provider the account may not order, nothing charged", async () => {
    const before = kit.sandbox.account.balanceSun;
    const address = freshAddress();
    const error = await rejection(api().create({ address, network: "btc", provider: "provider_b" }));
    expect(error).toMatchObject({ httpStatus: 400, code: 4002, retryable: false, kind: "http" });
    expect(kit.sandbox.account.balanceSun).toBe(before);
    expect(creates(address)).toHaveLength(1);
  });

  it("4004: the provider does not cover the network (or no provider does), nothing charged", async () => {
    const both = kit.sandbox.accounts.add({
      apiKey: "coverage-account",
      providers: ["provider_a", "provider_b"],
    });
    const client = api({ apiKey: both.apiKey });
    const uncovered = await rejection(
      client.create({ address: freshAddress(), network: "sol", provider: "provider_b" }),
    );
    expect(uncovered).toMatchObject({ family: "screening", httpStatus: 400, code: 4004, retryable: false });
    const unknown = await rejection(
      client.create({ address: freshAddress(), network: "doge2", provider: "provider_a" }),
    );
    expect(unknown).toMatchObject({ httpStatus: 400, code: 4004 });
    expect(both.balanceSun).toBe(500 * SUN_PER_TRX);
  });

  it("4020 (problem+json 402, our choice for v2): balance too low, nothing charged", async () => {
    const poor = kit.sandbox.accounts.add({ apiKey: "poor-account", balanceSun: PRICE_SUN - 1 });
    const error = await rejection(
      api({ apiKey: poor.apiKey }).create({
        address: freshAddress(),
        network: "trx",
        provider: "provider_a",
      }),
    );
    expect(error).toMatchObject({ httpStatus: 402, code: 4020, retryable: false });
    expect(poor.balanceSun).toBe(PRICE_SUN - 1);
  });

  it("4010 without a key, 4011 for a wrong key or a caller IP outside the whitelist", async () => {
    const noKey = await rejection(api({ apiKey: "" }).providers());
    expect(noKey).toMatchObject({ family: "screening", httpStatus: 401, code: 4010, retryable: false });
    const wrongKey = await rejection(api({ apiKey: "not-a-key" }).providers());
    expect(wrongKey).toMatchObject({ httpStatus: 401, code: 4011 });
    const address = freshAddress();
    const wrongIp = await rejection(
      api({ realIp: "198.51.100.7" }).create({ address, network: "trx", provider: "provider_a" }),
    );
    expect(wrongIp).toMatchObject({ httpStatus: 401, code: 4011 });
    expect(kit.sandbox.screening.orders().some((o) => o.address === address)).toBe(false);
  });

  it("4040: an unknown order and another account's order look the same", async () => {
    const unknown = await rejection(api().read("A0123456789abcd"));
    expect(unknown).toMatchObject({
      endpoint: "screening.read",
      httpStatus: 404,
      code: 4040,
      retryable: false,
    });

    const other = kit.sandbox.accounts.add({ apiKey: "owner-of-order" });
    const theirs = await api({ apiKey: other.apiKey }).create({
      address: freshAddress(),
      network: "trx",
      provider: "provider_a",
    });
    const foreign = await rejection(api().read(theirs.order.order.client_order_id));
    expect(foreign).toMatchObject({ httpStatus: 404, code: 4040 });
  });

  it("refuses a malformed client_order_id locally, before any call (the service would answer 4003)", async () => {
    const before = kit.sandbox.calls("screening.read").length;
    const error = await api()
      .read("A123")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: "not_sent", endpoint: "screening.read" });
    expect((error as ServiceError).message).toContain("A followed by 14 hexadecimal");
    expect(kit.sandbox.calls("screening.read")).toHaveLength(before);
  });

  it("5030: provider out of service, retryable; the providers list says why", async () => {
    kit.sandbox.screening.setProviderAvailable("provider_a", false);
    try {
      const listed = await api().providers();
      expect(listed.providers[0]).toMatchObject({ available: false, reason: "quota_exhausted" });
      const address = freshAddress();
      const before = kit.sandbox.account.balanceSun;
      const error = await rejection(api().create({ address, network: "trx", provider: "provider_a" }));
      expect(error).toMatchObject({ httpStatus: 503, code: 5030, retryable: true });
      expect(kit.sandbox.account.balanceSun).toBe(before);
      expect(creates(address)).toHaveLength(1);
    } finally {
      kit.sandbox.screening.setProviderAvailable("provider_a", true);
    }
  });
});

describe("screening.providers", () => {
  it("lists only the providers the account may order, with decimal prices", async () => {
    const mine = await api().providers();
    expect(mine.schema_version).toBe(2);
    expect(mine.trx_rate_usd).toBe("0.3");
    expect(mine.supported_languages).toEqual(["en"]);
    expect(mine.providers.map((p) => p.provider)).toEqual(["provider_a"]);
    expect(mine.providers[0]).toMatchObject({ price_usdt: "0.98", price_trx: "3.266667", available: true });
    expect(mine.providers[0]?.networks).toHaveLength(48);
    expect(mine.providers[0]?.score_scale).toEqual({ min: 0, max: 10 });

    const both = kit.sandbox.accounts.add({
      apiKey: "both-providers",
      providers: ["provider_a", "provider_b"],
    });
    const theirs = await api({ apiKey: both.apiKey }).providers();
    expect(theirs.providers.map((p) => p.provider)).toEqual(["provider_a", "provider_b"]);
  });
});

describe("screening rate limit", () => {
  it("decodes the bare 429 of the shared AML bucket (5 per second)", async () => {
    kit.sandbox.setRateLimits(true);
    try {
      const client = api();
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => client.providers()));
      const rejected = outcomes.filter((o) => o.status === "rejected");
      expect(rejected).toHaveLength(1);
      const error = (rejected[0] as PromiseRejectedResult).reason as ServiceError;
      expect(error).toMatchObject({
        family: "screening",
        kind: "rate_limited",
        httpStatus: 429,
        retryable: true,
      });
      expect(error.code).toBeUndefined();
      expect(error.message).toBe("API rate limit exceeded");
      expect(error.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(kit.sandbox.calls("screening.providers").filter((c) => c.status === 429)).toHaveLength(1);
    } finally {
      kit.sandbox.setRateLimits(false);
    }
  });
});

/** Sandbox timers that fire only when the test says: `asked` keeps each one with its delay. */
function manualTimers() {
  const asked: { ms: number; fire: () => void }[] = [];
  const waiting: (() => void)[] = [];
  const timers: Timers & { asked: typeof asked; untilAsked(count: number): Promise<void> } = {
    after(ms, fn) {
      asked.push({ ms, fire: () => void fn() });
      for (const wake of waiting.splice(0)) wake();
    },
    clear() {
      asked.length = 0;
    },
    asked,
    async untilAsked(count) {
      while (asked.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
  return timers;
}
