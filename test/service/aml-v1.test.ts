import { describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { SUN_PER_TRX } from "../../src/sandbox/accounts.js";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { amlPriceSun } from "../../src/sandbox/price-book.js";
import type { AmlV1Order } from "../../src/service/aml-v1.js";
import type { ServiceError } from "../../src/service/errors.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const PRICE_SUN = amlPriceSun("provider_a");
const V1_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const kit = useSandboxClient({
  sandbox: { enforceRateLimits: false, screening: { durationMs: 100, maxWaitMs: 3_000 } },
});
const api = (caller: ClientOverrides = {}) => kit.client(caller).amlV1;

let seq = 0;
const freshAddress = (): string => tronAddressFrom(`aml-v1-test-${process.pid}-${seq++}`);

async function pollUntilFinal(id: string): Promise<AmlV1Order> {
  for (let i = 0; i < 100; i += 1) {
    const order = await api().read(id);
    if (order.status !== "pending" && order.status !== "processing") return order;
    await sleep(20);
  }
  throw new Error(`order ${id} never finished`);
}

describe("aml.create and aml.read", () => {
  it("returns the pending shape with the price at once, then the completed shape on reads", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const pending = await api().create({ address, network: "trx" });

    expect(pending).toMatchObject({
      status: "pending",
      address,
      provider: "provider_a",
      report_language: "en",
      price_usdt: 0.98,
      price_trx: 3.266667,
      currency: "TRX",
    });
    expect(pending.message).toContain(`/apiv2/aml/${pending.client_order_id}`);
    expect(pending.created_at).toMatch(V1_TIME);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
    expect(kit.sandbox.calls("aml.create").at(-1)?.body).toEqual({ address, network: "trx" });

    const reading = await api().read(pending.client_order_id);
    expect(reading.status).toBe("pending");
    expect(reading.estimated_time_seconds).toBeGreaterThanOrEqual(1);

    const done = await pollUntilFinal(pending.client_order_id);
    const expected = kit.sandbox.screening.scoreOf(address);
    expect(done.status).toBe("completed");
    expect(done.risk_score).toBe(expected.score === null ? null : Number(expected.score));
    expect(done.completed_at).toMatch(V1_TIME);
    expect(done.sanctions).toBeDefined();
    expect(done.address_users).toEqual([]);
    expect(done.result?.evaluation_detail).toBeDefined();
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
  });

  it("waits for a sanctioned address and reports score, level, sanctions and the full result", async () => {
    const address = kit.sandbox.screening.demoAddresses.sanctioned;
    const done = await api().create({ address, network: "trx", wait: true, responseFormat: "full" });
    expect(done).toMatchObject({
      status: "completed",
      risk_score: 9.8,
      risk_level: "high",
      is_sanctioned: true,
    });
    expect(done.result?.risk_score).toBe(9.8);
    expect(done.result?.cluster_entities[0]).toMatchObject({
      category: "sanctions",
      is_after_sanction_date: true,
    });
    expect(done.result?.contributions.source.some((c) => c.entities[0]?.category === "sanctions")).toBe(true);
    expect(done.sanctions).toBeUndefined(); // the spec lists sanctions on reads

    const read = await api().read(done.client_order_id);
    expect(read.sanctions?.self).toBe(true);
    expect(read.sanctions?.exposure).not.toBeNull();
    expect(kit.sandbox.calls("aml.create").at(-1)?.body).toMatchObject({
      wait: true,
      response_format: "full",
    });
  });

  it("leaves out the provider result when response_format is rate", async () => {
    const done = await api().create({
      address: freshAddress(),
      network: "eth",
      wait: true,
      responseFormat: "rate",
    });
    expect(done.status).toBe("completed");
    expect(done.result).toBeUndefined();
  });

  it("skips an inactive address without charge, and refunds a failed check", async () => {
    const inactive = freshAddress();
    const failing = freshAddress();
    kit.sandbox.screening.setInactive(inactive);
    kit.sandbox.screening.setFails(failing);
    const before = kit.sandbox.account.balanceSun;

    const skipped = await api().create({ address: inactive, network: "trx" });
    expect(skipped).toMatchObject({ status: "skipped", risk_score: null, is_sanctioned: false });
    const failed = await api().create({ address: failing, network: "trx", wait: true });
    expect(failed.status).toBe("failed");
    expect(kit.sandbox.account.balanceSun).toBe(before);
  });

  it("reuses a check of the last 60 s without charging again", async () => {
    const address = freshAddress();
    const before = kit.sandbox.account.balanceSun;
    const first = await api().create({ address, network: "trx", wait: true });
    const second = await api().create({ address, network: "trx" });
    expect(second.status).toBe("completed");
    expect(second.client_order_id).not.toBe(first.client_order_id);
    expect(second.risk_score).toBe(first.risk_score);
    expect(kit.sandbox.account.balanceSun).toBe(before - PRICE_SUN);
  });
});

describe("aml errors", () => {
  it("4001: invalid address, unsupported network, uncovered pair, refused format", async () => {
    const both = kit.sandbox.accounts.add({ apiKey: "v1-both", providers: ["provider_a", "provider_b"] });
    const client = api({ apiKey: both.apiKey });
    const cases = [
      client.create({ address: "T123", network: "trx" }),
      client.create({ address: freshAddress(), network: "dogecoin" }),
      client.create({ address: freshAddress(), network: "sol", provider: "provider_b" }),
      client.create({ address: freshAddress(), network: "trx", responseFormat: "md" as "full" }),
    ];
    for (const attempt of cases) {
      const error = await rejection(attempt);
      expect(error).toMatchObject({ family: "aml_v1", endpoint: "aml.create", httpStatus: 400, code: 4001 });
      expect(error.retryable).toBe(false);
    }
    expect(both.balanceSun).toBe(500 * SUN_PER_TRX);
  });

  it("4002: invalid provider on create and on price", async () => {
    const create = await rejection(
      api().create({ address: freshAddress(), network: "trx", provider: "nope" }),
    );
    expect(create).toMatchObject({ httpStatus: 400, code: 4002, retryable: false });
    const price = await rejection(api().price("provider_b"));
    expect(price).toMatchObject({ endpoint: "aml.price", httpStatus: 400, code: 4002 });
    expect(kit.sandbox.calls("aml.price").at(-1)?.query).toEqual({ provider: "provider_b" });
  });

  it("4020: insufficient balance, nothing charged", async () => {
    const poor = kit.sandbox.accounts.add({ apiKey: "v1-poor", balanceSun: SUN_PER_TRX });
    const error = await rejection(
      api({ apiKey: poor.apiKey }).create({ address: freshAddress(), network: "trx" }),
    );
    expect(error).toMatchObject({ httpStatus: 402, code: 4020, retryable: false });
    expect(error.message).toBe("insufficient balance");
    expect(poor.balanceSun).toBe(SUN_PER_TRX);
  });

  it("4040: unknown order, and an order of another account", async () => {
    const unknown = await rejection(api().read("A00000000000000"));
    expect(unknown).toMatchObject({ endpoint: "aml.read", httpStatus: 404, code: 4040, retryable: false });
    const other = kit.sandbox.accounts.add({ apiKey: "v1-other" });
    const theirs = await api({ apiKey: other.apiKey }).create({ address: freshAddress(), network: "trx" });
    const foreign = await rejection(api().read(theirs.client_order_id));
    expect(foreign).toMatchObject({ httpStatus: 404, code: 4040 });
  });

  it("5030: provider unavailable, retryable and retried by the transport", async () => {
    kit.sandbox.screening.setProviderAvailable("provider_a", false);
    try {
      const address = freshAddress();
      const before = kit.sandbox.account.balanceSun;
      const error = await rejection(api({ maxAttempts: 2 }).create({ address, network: "trx" }));
      expect(error).toMatchObject({ httpStatus: 503, code: 5030, retryable: true });
      const attempts = kit.sandbox
        .calls("aml.create")
        .filter((c) => (c.body as { address: string }).address === address);
      expect(attempts).toHaveLength(2);
      expect(kit.sandbox.account.balanceSun).toBe(before);
      const providers = await api().providers();
      expect(providers.providers[0]).toMatchObject({ available: false, reason: "quota_exhausted" });
      expect((await api().price()).available).toBe(false);
    } finally {
      kit.sandbox.screening.setProviderAvailable("provider_a", true);
    }
  });

  it("-1: authentication failed (missing key, unknown key)", async () => {
    const missing = await rejection(api({ apiKey: "" }).providers());
    expect(missing).toMatchObject({ family: "aml_v1", httpStatus: 401, code: -1, retryable: false });
    expect(missing.message).toBe("API key not provided");
    const wrong = await rejection(api({ apiKey: "bogus" }).read("A00000000000000"));
    expect(wrong).toMatchObject({ httpStatus: 401, code: -1 });
  });
});

describe("aml.providers and aml.price", () => {
  it("lists providers with numbers, formats and languages", async () => {
    const list = await api().providers();
    expect(list).toEqual({
      providers: [{ provider: "provider_a", price_usdt: 0.98, price_trx: 3.266667, available: true }],
      trx_rate_usd: 0.3,
      supported_formats: ["rate", "full"],
      supported_languages: ["en"],
    });
  });

  it("prices a check against the balance", async () => {
    const price = await api().price();
    expect(price).toMatchObject({
      provider: "provider_a",
      price_usdt: 0.98,
      price_trx: 3.266667,
      trx_rate_usd: 0.3,
    });
    expect(price.user_balance_trx).toBe(kit.sandbox.account.balanceSun / SUN_PER_TRX);
    expect(price.can_afford).toBe(true);
    const poor = kit.sandbox.accounts.add({ apiKey: "v1-price-poor", balanceSun: 3 * SUN_PER_TRX });
    const theirs = await api({ apiKey: poor.apiKey }).price("provider_a");
    expect(theirs).toMatchObject({ user_balance_trx: 3, can_afford: false });
  });
});

describe("aml rate limit", () => {
  it("decodes the bare 429 of the version 1 bucket (2 per second)", async () => {
    kit.sandbox.setRateLimits(true);
    try {
      const client = api();
      const outcomes = await Promise.allSettled([client.providers(), client.price(), client.providers()]);
      const rejected = outcomes.filter((o) => o.status === "rejected");
      expect(rejected).toHaveLength(1);
      const error = (rejected[0] as PromiseRejectedResult).reason as ServiceError;
      expect(error).toMatchObject({
        family: "aml_v1",
        kind: "rate_limited",
        httpStatus: 429,
        retryable: true,
      });
      expect(error.message).toBe("API rate limit exceeded");
    } finally {
      kit.sandbox.setRateLimits(false);
    }
  });
});
