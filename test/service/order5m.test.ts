import { beforeEach, describe, expect, it, vi } from "vitest";
import { SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { ACTIVATION_SUN, ENERGY_5M_PERIODS, energyCostSun } from "../../src/sandbox/price-book.js";
import { createSandbox } from "../../src/sandbox/server.js";
import type { ServiceError } from "../../src/service/errors.js";
import { order5mIdempotencyKey } from "../../src/service/idempotency.js";
import {
  type ClientOverrides,
  energyOrdersTo,
  orderEventsFor,
  rejection,
  sandboxClient,
  useSandboxClient,
} from "../support/service-kit.js";

const LATENCY_MS = 120;
const WINDOW_MS = 300;
const kit = useSandboxClient({
  sandbox: {
    enforceRateLimits: false,
    energy: { order5mLatencyMs: LATENCY_MS, webhookDelayMs: 5, duplicateWindowMs: WINDOW_MS },
  },
});
beforeEach(() => {
  kit.sandbox.account.balanceSun = 500 * SUN_PER_TRX;
  kit.sandbox.account.blocked = false;
});

const api = (caller: ClientOverrides = {}) => kit.client(caller).order5m;

/** Sends a body the client would refuse locally, to check the service's own answer. */
const rawOrder = (body: unknown, headers: Record<string, string> = {}) =>
  kit.post({ family: "order5m", endpoint: "order5m.create", path: "/apiv2/order5m", body, headers });

let seq = 0;
const freshAddress = () => tronAddress(`order5m-test-${process.pid}-${seq++}`);
const keyFor = (receiveAddress: string, amount = 65_000, confirmationId = `c-${seq++}`) =>
  order5mIdempotencyKey({ confirmationId, period: "5m", receiveAddress, amount });
const callsTo = (address: string) =>
  kit.sandbox
    .calls("order5m.create")
    .filter((c) => (c.body as { receiveAddress?: string })?.receiveAddress === address);
const ordersTo = (address: string) => energyOrdersTo(kit.sandbox, address);
const eventsFor = (address: string) => orderEventsFor(kit.sandbox, address);

describe("order5m.create: success", () => {
  it("charges the price book's cost, delegates amount + 50 and sends delegation.confirmed", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const out = await api().create({
      amount: 65_000,
      receiveAddress: address,
      idempotencyKey: keyFor(address),
    });

    expect(out.replayed).toBe(false);
    expect(out.idempotency).toBeUndefined();
    expect(out.result.orderId).toMatch(/^5M/);
    expect(out.result.energy).toBe(65_050);
    expect(out.result.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(out.result.delegateAddress).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(out.result.activationHash).toBeUndefined();
    const [order] = ordersTo(address);
    expect(order?.costSun).toBe(energyCostSun(ENERGY_5M_PERIODS, 65_000, order?.createdAt ?? 0));
    expect(before - kit.sandbox.account.balanceSun).toBe(order?.costSun);
    expect(out.result.paidTRX).toBe(String((order?.costSun ?? 0) / SUN_PER_TRX));
    expect(callsTo(address)).toHaveLength(1);
    expect(callsTo(address)[0]?.headers["x-idempotency-key"]).toMatch(/^[0-9a-f]{64}$/);

    await vi.waitFor(() => expect(eventsFor(address)).toHaveLength(1));
    expect(eventsFor(address)[0]).toMatchObject({
      event: "delegation.confirmed",
      order_id: out.result.orderId,
      order_type: "5m",
      receive_address: address,
      energy_amount: 65_050,
      tx_hashes: [out.result.hash],
      tx_hash: out.result.hash,
    });
    expect(eventsFor(address)[0]?.delivery_id).toEqual(expect.any(Number));
  });

  it("activates an inactive address once, adds the activation cost and names both parts", async () => {
    const address = freshAddress();
    kit.sandbox.energy.markInactive(address);
    const before = kit.sandbox.account.balanceSun;
    const first = await api().create({
      amount: 100_000,
      receiveAddress: address,
      idempotencyKey: keyFor(address),
    });
    const [order] = ordersTo(address);
    const paid = (order?.costSun ?? 0) + ACTIVATION_SUN;

    expect(before - kit.sandbox.account.balanceSun).toBe(paid);
    expect(first.result.paidTRX).toBe(String(paid / SUN_PER_TRX));
    expect(first.result.activationHash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.message).toMatch(/activation/i);
    expect(first.message).toMatch(/energy/i);
    expect(kit.sandbox.energy.isActive(address)).toBe(true);

    await vi.waitFor(() => expect(eventsFor(address)).toHaveLength(2));
    const activation = eventsFor(address).find((e) => e.event === "activation.confirmed");
    const delegation = eventsFor(address).find((e) => e.event === "delegation.confirmed");
    expect(activation).toMatchObject({
      order_type: "activation",
      address,
      activation_type: "ACC_CREATE",
      source: first.result.orderId,
      tx_hashes: [first.result.activationHash],
    });
    expect(activation?.order_id).toMatch(/^\d+$/);
    expect(activation?.delivery_id).not.toBe(delegation?.delivery_id);

    const mid = kit.sandbox.account.balanceSun;
    const second = await api().create({
      amount: 100_000,
      receiveAddress: address,
      idempotencyKey: keyFor(address),
    });
    expect(second.result.activationHash).toBeUndefined();
    expect(mid - kit.sandbox.account.balanceSun).toBe(ordersTo(address)[1]?.costSun);
  });
});

describe("order5m.create: contracts", () => {
  it("a contract exists on-chain: no activation even when marked inactive", async () => {
    const address = freshAddress();
    kit.sandbox.energy.markInactive(address);
    kit.sandbox.energy.markContract(address);
    const before = kit.sandbox.account.balanceSun;
    const out = await api().create({
      amount: 65_000,
      receiveAddress: address,
      idempotencyKey: keyFor(address),
    });
    expect(out.result.activationHash).toBeUndefined();
    expect(before - kit.sandbox.account.balanceSun).toBe(ordersTo(address)[0]?.costSun);
    expect(kit.sandbox.energy.activations().filter((a) => a.address === address)).toEqual([]);
  });
});

describe("order5m.create: idempotency", () => {
  it("a repeat with the same key is a 208 with the original reply and one charge", async () => {
    const address = freshAddress();
    const key = keyFor(address);
    const before = kit.sandbox.account.balanceSun;
    const first = await api().create({ amount: 70_000, receiveAddress: address, idempotencyKey: key });
    const again = await api().create({ amount: 70_000, receiveAddress: address, idempotencyKey: key });

    expect(again.replayed).toBe(true);
    expect(again.result).toEqual(first.result);
    expect(again.idempotency).toMatchObject({ status: "completed", cached: true });
    expect(Date.parse(again.idempotency?.original_created_at ?? "")).not.toBeNaN();
    expect(ordersTo(address)).toHaveLength(1);
    expect(before - kit.sandbox.account.balanceSun).toBe(ordersTo(address)[0]?.costSun);
    expect(callsTo(address).map((c) => c.status)).toEqual([200, 208]);
  });

  it("two parallel sends with one key make one order; the other is a 208, or a 409 then a 208", async () => {
    const address = freshAddress();
    const request = { amount: 80_000, receiveAddress: address, idempotencyKey: keyFor(address) };
    const before = kit.sandbox.account.balanceSun;
    const results = await Promise.allSettled([api().create(request), api().create(request)]);
    const fulfilled = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const firstOrder = fulfilled.find((r) => !r.replayed);
    expect(firstOrder).toBeDefined();
    for (const r of results) {
      if (r.status === "rejected") {
        expect(r.reason).toMatchObject({
          httpStatus: 409,
          code: "duplicate_request_processing",
          retryable: true,
        });
        const retried = await api().create(request);
        expect(retried.replayed).toBe(true);
        expect(retried.result.orderId).toBe(firstOrder?.result.orderId);
      }
    }
    expect(ordersTo(address)).toHaveLength(1);
    expect(before - kit.sandbox.account.balanceSun).toBe(ordersTo(address)[0]?.costSun);
  });

  it("a repeat while the first is still running is a retryable 409 with retry_after_seconds", async () => {
    const address = freshAddress();
    const request = { amount: 90_000, receiveAddress: address, idempotencyKey: keyFor(address) };
    const first = api().create(request);
    await vi.waitFor(() => expect(ordersTo(address)).toHaveLength(1));
    const error = await rejection(api().create(request));

    expect(error).toMatchObject({
      family: "order5m",
      endpoint: "order5m.create",
      kind: "http",
      httpStatus: 409,
      code: "duplicate_request_processing",
      retryable: true,
      retryAfterMs: 1_000,
    });
    const original = await first;
    const retried = await api().create(request);
    expect(retried).toMatchObject({ replayed: true, result: original.result });
    expect(callsTo(address).map((c) => c.status)).toEqual([200, 409, 208]);
    expect(ordersTo(address)).toHaveLength(1);
  });

  it("without a key, an identical order inside the window is the same order; after it, a new one", async () => {
    const address = freshAddress();
    const body = { amount: 75_000, receiveAddress: address };
    const first = await rawOrder(body);
    const repeat = await rawOrder(body);
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(208);
    expect(JSON.parse(repeat.body.toString()).detail).toEqual(JSON.parse(first.body.toString()).detail);
    expect(ordersTo(address)).toHaveLength(1);

    await new Promise((r) => setTimeout(r, WINDOW_MS + 20));
    expect((await rawOrder(body)).status).toBe(200);
    expect(ordersTo(address)).toHaveLength(2);
  });

  it("a 5003 charges nothing, and a resend with the same key after it charges once", async () => {
    const address = freshAddress();
    const request = { amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) };
    const before = kit.sandbox.account.balanceSun;
    kit.sandbox.energy.setPoolsAtCapacity(true);
    const error = await rejection(api().create(request));
    kit.sandbox.energy.setPoolsAtCapacity(false);

    expect(error).toMatchObject({ httpStatus: 503, code: 5003, retryable: true, kind: "http" });
    expect(kit.sandbox.account.balanceSun).toBe(before);
    expect(ordersTo(address)).toHaveLength(0);

    // The client sends a money POST once, whatever the transport allows: the caller resends it,
    // with the same key, and the service charges once.
    kit.sandbox.inject("order5m.create", {
      kind: "reply",
      reply: { status: 503, json: { detail: { code: 5003, msg: "Energy service unavailable" } } },
    });
    await expect(api({ maxAttempts: 3 }).create(request)).rejects.toMatchObject({ code: 5003 });
    const out = await api({ maxAttempts: 3 }).create(request);
    expect(out.replayed).toBe(false);
    expect(callsTo(address).map((c) => c.status)).toEqual([503, 503, 200]);
    expect(before - kit.sandbox.account.balanceSun).toBe(ordersTo(address)[0]?.costSun);
  });
});

describe("order5m.create: errors", () => {
  it("1003: refused locally without a call; the service answers 400 naming the range", async () => {
    const address = freshAddress();
    const local = await rejection(
      api().create({ amount: 60_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
    );
    expect(local).toMatchObject({ kind: "not_sent", code: 1003, httpStatus: undefined, retryable: false });
    expect(callsTo(address)).toHaveLength(0);

    const served = await rejection(rawOrder({ amount: 700_000, receiveAddress: address }));
    expect(served).toMatchObject({ httpStatus: 400, code: 1003, retryable: false });
    expect(served.message).toMatch(/61000.*650000/);
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("a malformed key: refused locally; the service answers 400 with a detail string", async () => {
    const address = freshAddress();
    const local = await rejection(
      api().create({ amount: 65_000, receiveAddress: address, idempotencyKey: "ABC" }),
    );
    expect(local.httpStatus).toBeUndefined();
    expect(callsTo(address)).toHaveLength(0);

    const served = await rejection(
      rawOrder({ amount: 65_000, receiveAddress: address }, { "x-idempotency-key": "F".repeat(64) }),
    );
    expect(served).toMatchObject({ httpStatus: 400, code: undefined, retryable: false });
    expect(served.message).toMatch(/X-Idempotency-Key/);
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("a malformed address: refused locally; the service answers 422 with details", async () => {
    const local = await rejection(
      api().create({ amount: 65_000, receiveAddress: "Tnope", idempotencyKey: keyFor("x") }),
    );
    expect(local.httpStatus).toBeUndefined();
    const served = await rejection(rawOrder({ amount: 65_000, receiveAddress: "Tnope" }));
    expect(served).toMatchObject({ httpStatus: 422, code: undefined });
    expect(served.details).toEqual(["receiveAddress: Invalid TRON address"]);
  });

  it("1005: the payer address is not configured (400), nothing charged", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    kit.sandbox.energy.setPayerConfigured(kit.sandbox.account, false);
    const error = await rejection(
      api().create({ amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
    );
    kit.sandbox.energy.setPayerConfigured(kit.sandbox.account, true);
    expect(error).toMatchObject({ httpStatus: 400, code: 1005, retryable: false });
    expect(kit.sandbox.account.balanceSun).toBe(before);
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("1004: insufficient funds is a 403 and charges nothing", async () => {
    const address = freshAddress();
    kit.sandbox.account.balanceSun = 1 * SUN_PER_TRX;
    const error = await rejection(
      api().create({ amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
    );
    expect(error).toMatchObject({
      httpStatus: 403,
      code: 1004,
      retryable: false,
      message: "Insufficient funds",
    });
    expect(kit.sandbox.account.balanceSun).toBe(1 * SUN_PER_TRX);
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("401: an unknown key or an IP off the whitelist gets a detail string", async () => {
    const address = freshAddress();
    for (const opts of [{ apiKey: "wrong-key" }, { realIp: "198.51.100.77" }]) {
      const error = await rejection(
        api(opts).create({ amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
      );
      expect(error).toMatchObject({ httpStatus: 401, code: undefined, retryable: false, kind: "http" });
      expect(error.message).toMatch(/API key|IP/);
    }
    expect(callsTo(address).map((c) => c.status)).toEqual([401, 401]);
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("403 1005: a blocked key", async () => {
    const address = freshAddress();
    kit.sandbox.account.blocked = true;
    const error = await rejection(
      api().create({ amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
    );
    expect(error).toMatchObject({ httpStatus: 403, code: 1005 });
    expect(ordersTo(address)).toHaveLength(0);
  });

  it("5000: an internal error is decoded and not retried", async () => {
    const address = freshAddress();
    kit.sandbox.inject("order5m.create", {
      kind: "reply",
      reply: { status: 500, json: { detail: { code: 5000, msg: "Internal error" } } },
    });
    const error = await rejection(
      api({ maxAttempts: 3 }).create({
        amount: 65_000,
        receiveAddress: address,
        idempotencyKey: keyFor(address),
      }),
    );
    expect(error).toMatchObject({ httpStatus: 500, code: 5000, message: "Internal error", retryable: false });
    expect(callsTo(address)).toHaveLength(1);
  });

  it("429: the rate limit reply is rate_limited with Retry-After", async () => {
    const address = freshAddress();
    kit.sandbox.inject("order5m.create", {
      kind: "reply",
      reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "1" } },
    });
    const error = await rejection(
      api().create({ amount: 65_000, receiveAddress: address, idempotencyKey: keyFor(address) }),
    );
    expect(error).toMatchObject({
      kind: "rate_limited",
      httpStatus: 429,
      message: "API rate limit exceeded",
      retryable: true,
      retryAfterMs: 1_000,
    });
  });

  it("429 from the real limit: 50 per second per IP", async () => {
    const limited = await createSandbox({ energy: { order5mLatencyMs: 1, webhookDelayMs: 1 } });
    try {
      const client = sandboxClient(limited).order5m;
      const address = freshAddress();
      const results = await Promise.allSettled(
        Array.from({ length: 51 }, (_, i) =>
          client.create({
            amount: 65_000,
            receiveAddress: address,
            idempotencyKey: keyFor(address, 65_000, `rl-${i}`),
          }),
        ),
      );
      const rejected = results.flatMap((r) => (r.status === "rejected" ? [r.reason as ServiceError] : []));
      expect(rejected.length).toBeGreaterThanOrEqual(1);
      expect(rejected[0]).toMatchObject({ kind: "rate_limited", httpStatus: 429 });
      expect(limited.energy.orders()).toHaveLength(51 - rejected.length);
    } finally {
      await limited.close();
    }
  });
});
