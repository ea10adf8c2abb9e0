import { describe, expect, it } from "vitest";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { createRateLimiter } from "../../src/service/limiter.js";
import { RATE_BUCKETS } from "../../src/service/rate-limits.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

/**
 * Single deny-list lookups through a client that coalesces them (as the bot's does): the sandbox
 * enforces the service's limits (open lookup 10/s and 300/min per IP, batch 200/s per key), and
 * the client's own limiter keeps it under them.
 */
const kit = useSandboxClient({
  lifetime: "test",
  sandbox: { enforceRateLimits: true, screening: { demoData: false } },
});

let seq = 0;
const fresh = (): string => tronAddressFrom(`coalesce-${process.pid}-${seq++}`);

async function client(overrides: ClientOverrides = {}) {
  await kit.start();
  const waits: number[] = [];
  const limiter = createRateLimiter({
    keyPrefix: `coalesce-${seq++}:`,
    // Records every wait instead of sleeping: a lookup that waited on a limit shows here.
    sleep: async (ms) => {
      waits.push(ms);
      await new Promise((r) => setTimeout(r, ms));
    },
  });
  return { api: kit.client({ limiter, coalesceLookups: true, ...overrides }).compliance, waits };
}

const calls = (endpoint: string) => kit.sandbox.calls(endpoint);
const limited = () => kit.sandbox.calls().filter((c) => c.status === 429);

describe("coalesced deny-list lookups", () => {
  it("answers a lone lookup at once with the open lookup", async () => {
    const { api } = await client();
    const address = fresh();
    kit.sandbox.screening.addToList("usdt_frozen", address);
    await expect(api.lookup(address)).resolves.toMatchObject({
      address,
      blocked: true,
      category: "usdt_frozen",
    });
    expect(calls("compliance.lookup").map((c) => c.path)).toEqual([`/apiv2/compliance/${address}`]);
    expect(calls("compliance.batch")).toEqual([]);
  });

  it("gathers 1500 lookups made together into two batch calls: one open lookup, zero 429s, each its own verdict", async () => {
    const { api, waits } = await client();
    const addresses = Array.from({ length: 1500 }, fresh);
    const listed = addresses.filter((_, i) => i % 100 === 7);
    for (const a of listed) kit.sandbox.screening.addToList("aml_risk", a, { label: "Scam cluster" });
    const verdicts = await Promise.all(addresses.map((a) => api.lookup(a)));

    expect(verdicts.map((v) => v.address)).toEqual(addresses);
    expect(verdicts.filter((v) => v.blocked).map((v) => v.address)).toEqual(listed);
    expect(verdicts.find((v) => v.blocked)).toMatchObject({ category: "aml_risk", label: "Scam cluster" });
    expect(calls("compliance.lookup")).toHaveLength(1);
    const batches = calls("compliance.batch").map((c) => (c.body as { addresses: string[] }).addresses);
    expect(batches.map((b) => b.length)).toEqual([1000, 499]);
    expect(batches.flat().sort()).toEqual(addresses.slice(1).sort());
    expect(limited()).toEqual([]);
    expect(waits).toEqual([]);
  });

  it("never waits for the open lookup's limit: with no slot free, a lone lookup goes to the batch", async () => {
    const { api, waits } = await client({
      limiter: createRateLimiter({
        keyPrefix: `coalesce-one-${seq++}:`,
        windows: { ...RATE_BUCKETS, compliance_open: [{ points: 1, durationMs: 60_000 }] },
      }),
    });
    const [first, second] = [fresh(), fresh()];
    kit.sandbox.screening.addToList("spam_sender", second);
    await expect(api.lookup(first)).resolves.toMatchObject({ category: "clean" });
    await expect(api.lookup(second)).resolves.toMatchObject({ address: second, category: "spam_sender" });
    expect(calls("compliance.lookup")).toHaveLength(1);
    expect(calls("compliance.batch").map((c) => c.body)).toEqual([{ addresses: [second] }]);
    expect(waits).toEqual([]);
  });

  it("keeps a bounded caller's own answer when it is alone and no open slot is free", async () => {
    const { api } = await client({
      limiter: createRateLimiter({
        keyPrefix: `coalesce-bounded-${seq++}:`,
        windows: { ...RATE_BUCKETS, compliance_open: [{ points: 1, durationMs: 60_000 }] },
      }),
    });
    await api.lookup(fresh());
    const error = await rejection(api.lookup(fresh(), { maxLimiterWaitMs: 0 }));
    expect(error).toMatchObject({ kind: "rate_limited", code: "no_free_slot" });
    expect(calls("compliance.batch")).toEqual([]);
  });

  it("answers each waiter with the batch's error when the deny list is down (5003)", async () => {
    const { api } = await client();
    kit.sandbox.screening.setComplianceUnavailable(true);
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => api.lookup(fresh())));
      const reasons = outcomes.map((o) => (o.status === "rejected" ? o.reason : o.status));
      expect(reasons).toHaveLength(20);
      for (const reason of reasons) expect(reason).toMatchObject({ httpStatus: 503, code: 5003 });
      expect(calls("compliance.batch")).toHaveLength(1);
      expect(calls("compliance.lookup")).toHaveLength(1);
    } finally {
      kit.sandbox.screening.setComplianceUnavailable(false);
    }
  });

  it("falls back to each waiter's own open lookup when the key may not batch (IP not allowed)", async () => {
    const { api } = await client({ realIp: "198.51.100.9" });
    const addresses = Array.from({ length: 5 }, fresh);
    kit.sandbox.screening.addToList("smart_contract", addresses[3] as string);
    const verdicts = await Promise.all(addresses.map((a) => api.lookup(a)));
    expect(verdicts.map((v) => v.category)).toEqual(["clean", "clean", "clean", "smart_contract", "clean"]);
    expect(calls("compliance.batch").map((c) => c.status)).toEqual([401]);
    expect(calls("compliance.lookup").map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("answers a malformed address in a batch as the open lookup would (1001), the others with their verdicts", async () => {
    const { api } = await client();
    const [a, b] = [fresh(), fresh()];
    const outcomes = await Promise.allSettled([
      api.lookup(a),
      api.lookup("T123"),
      api.lookup(b),
      api.lookup(a),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      endpoint: "compliance.lookup",
      httpStatus: 400,
      code: 1001,
      message: "invalid TRON address format",
    });
    // The same address twice in one gathering is asked once.
    expect(calls("compliance.batch").map((c) => c.body)).toEqual([{ addresses: ["T123", b, a] }]);
  });
});
