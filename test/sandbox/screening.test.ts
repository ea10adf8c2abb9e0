import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { DEMO_ADDRESSES, tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { ServiceError } from "../../src/service/errors.js";
import { type CallSpec, createTransport } from "../../src/service/transport.js";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ enforceRateLimits: false, screening: { durationMs: 50 } });
});
afterAll(async () => sandbox.close());

const KEY_HEADERS = { "x-api-key": DEFAULT_API_KEY, "x-real-ip": DEFAULT_REAL_IP };

async function post(path: string, body: unknown, headers: Record<string, string> = KEY_HEADERS) {
  return fetch(sandbox.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const get = (path: string, headers: Record<string, string> = KEY_HEADERS) =>
  fetch(sandbox.url + path, { headers });

describe("version 2 over raw HTTP", () => {
  it("sends 202 with Location and Cache-Control: private, no-store; the Location reads the order", async () => {
    const address = tronAddressFrom("raw-v2-1");
    const created = await post("/apiv2/screening", { address, network: "trx", provider: "provider_a" });
    expect(created.status).toBe(202);
    expect(created.headers.get("cache-control")).toBe("private, no-store");
    const body = (await created.json()) as { order: { client_order_id: string } };
    const location = created.headers.get("location");
    expect(location).toBe(`/apiv2/screening/${body.order.client_order_id}`);

    const read = await get(location ?? "");
    expect(read.status).toBe(200);
    expect(read.headers.get("cache-control")).toBe("private, no-store");
    const order = (await read.json()) as Record<string, unknown>;
    expect(Object.keys(order).sort()).toEqual(
      [
        "schema_version",
        "order",
        "request",
        "billing",
        "precheck",
        "check",
        "risk",
        "sanctions",
        "exposure",
        "rules",
        "entities",
        "primary_entity",
        "sanctioned_entities",
        "wallet",
        "provider_data",
      ].sort(),
    );
  });

  it("answers errors as RFC 9457 problem+json with the request path as instance", async () => {
    const reply = await get("/apiv2/screening/not-an-id");
    expect(reply.status).toBe(400);
    expect(reply.headers.get("content-type")).toBe("application/problem+json");
    expect(await reply.json()).toEqual({
      type: expect.stringMatching(/^https:\/\//),
      title: "Invalid order identifier",
      status: 400,
      detail: expect.any(String),
      instance: "/apiv2/screening/not-an-id",
      code: 4003,
    });
  });

  it("4003 and 4001 (format) decode through the transport", async () => {
    const transport = createTransport({
      baseUrl: sandbox.url,
      apiKey: DEFAULT_API_KEY,
      realIp: DEFAULT_REAL_IP,
    });
    const spec = (path: string, query?: Record<string, string>): CallSpec => ({
      family: "screening",
      endpoint: "screening.read",
      method: "GET",
      path,
      query,
      auth: "key+ip",
      timeoutMs: 5_000,
      buckets: ["aml"],
      resendable: true,
    });
    const badId = await transport.send(spec("/apiv2/screening/A12")).catch((e: unknown) => e);
    expect(badId).toBeInstanceOf(ServiceError);
    expect(badId).toMatchObject({ httpStatus: 400, code: 4003, retryable: false });

    const created = await post("/apiv2/screening", {
      address: tronAddressFrom("raw-v2-format"),
      network: "trx",
      provider: "provider_a",
    });
    const id = ((await created.json()) as { order: { client_order_id: string } }).order.client_order_id;
    const badFormat = await transport
      .send(spec(`/apiv2/screening/${id}`, { format: "pdf" }))
      .catch((e: unknown) => e);
    expect(badFormat).toMatchObject({ httpStatus: 400, code: 4001, retryable: false });
    expect(sandbox.calls("screening.read").at(-1)?.query).toEqual({ format: "pdf" });
  });

  it("scopes X-Idempotency-Key to the account", async () => {
    const other = sandbox.accounts.add({ apiKey: "raw-other" });
    const body = { address: tronAddressFrom("raw-idem"), network: "trx", provider: "provider_a" };
    const mine = await post("/apiv2/screening", body, { ...KEY_HEADERS, "x-idempotency-key": "k-1" });
    const theirs = await post("/apiv2/screening", body, {
      "x-api-key": other.apiKey,
      "x-real-ip": DEFAULT_REAL_IP,
      "x-idempotency-key": "k-1",
    });
    const idOf = async (r: Response) =>
      ((await r.json()) as { order: { client_order_id: string } }).order.client_order_id;
    expect(await idOf(mine)).not.toBe(await idOf(theirs));
  });
});

describe("version 1 and compliance error shapes over raw HTTP", () => {
  it("v1 authentication: 401 {detail:{code:-1,msg}}", async () => {
    const reply = await get("/apiv2/aml/providers", {});
    expect(reply.status).toBe(401);
    expect(await reply.json()).toEqual({ detail: { code: -1, msg: "API key not provided" } });
  });

  it("v1 errors: {success:false, error:{code,msg}, timestamp}", async () => {
    const reply = await post("/apiv2/aml", { address: "short", network: "trx" });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({
      success: false,
      error: { code: 4001, msg: "invalid or missing address" },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
  });

  it("compliance: open lookup without key; errors are {code,status:error,msg}", async () => {
    const ok = await get(`/apiv2/compliance/${DEMO_ADDRESSES.usdtContract}`, {});
    expect(await ok.json()).toMatchObject({
      code: 0,
      status: "success",
      data: { category: "smart_contract" },
    });
    const bad = await get("/apiv2/compliance/xyz", {});
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: 1001, status: "error", msg: "invalid TRON address format" });
  });
});

describe("deterministic scorer and demo data", () => {
  it("gives an address the same finding every time, and spreads findings over the bands", () => {
    const address = tronAddressFrom("stable");
    expect(sandbox.screening.scoreOf(address)).toEqual(sandbox.screening.scoreOf(address));
    const findings = Array.from({ length: 300 }, (_, i) =>
      sandbox.screening.scoreOf(tronAddressFrom(`spread-${i}`)),
    );
    const scores = findings.map((f) => (f.score === null ? null : Number(f.score)));
    expect(scores.some((s) => s === null)).toBe(true);
    expect(scores.some((s) => s !== null && s < 3)).toBe(true);
    expect(scores.some((s) => s !== null && s >= 7)).toBe(true);
    expect(findings.some((f) => f.exposure.some((e) => e.category === "sanctions"))).toBe(true);
    for (const f of findings) {
      const total = f.exposure.reduce((sum, e) => sum + Math.round(Number(e.share_fraction) * 1000), 0);
      expect(total).toBe(1000);
    }
  });

  it("demo addresses are valid TRON addresses with their documented behaviour", async () => {
    const base58check = createBase58check(sha256);
    for (const address of Object.values(DEMO_ADDRESSES)) {
      expect(base58check.decode(address)[0]).toBe(0x41);
    }
    const lookup = async (a: string) =>
      ((await (await get(`/apiv2/compliance/${a}`, {})).json()) as { data: { category: string } }).data
        .category;
    expect(await lookup(DEMO_ADDRESSES.sanctioned)).toBe("aml_risk"); // also usdt_frozen: aml_risk wins
    expect(await lookup(DEMO_ADDRESSES.usdtFrozen)).toBe("usdt_frozen");
    expect(await lookup(DEMO_ADDRESSES.spamSender)).toBe("spam_sender");

    const skipped = await post("/apiv2/screening", {
      address: DEMO_ADDRESSES.inactive,
      network: "trx",
      provider: "provider_a",
    });
    expect(skipped.status).toBe(200);
    expect(((await skipped.json()) as { order: { status: string } }).order.status).toBe("skipped");
    expect(sandbox.screening.scoreOf(DEMO_ADDRESSES.highRisk).score).toBe("8.40");
  });

  it("starts empty without demo data", async () => {
    const bare = await createSandbox({ enforceRateLimits: false, screening: { demoData: false } });
    try {
      const stats = (await (await fetch(`${bare.url}/apiv2/compliance/stats`)).json()) as {
        data: { total: number };
      };
      expect(stats.data.total).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
