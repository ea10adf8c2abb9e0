import { describe, expect, it } from "vitest";
import { DEFAULT_API_KEY } from "../../src/sandbox/accounts.js";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { COMPLIANCE_BATCH_MAX } from "../../src/service/compliance.js";
import { ServiceError } from "../../src/service/errors.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const kit = useSandboxClient({ sandbox: { enforceRateLimits: false } });
const api = (caller: ClientOverrides = {}) => kit.client(caller).compliance;

let seq = 0;
const freshAddress = (): string => tronAddressFrom(`compliance-test-${process.pid}-${seq++}`);

describe("compliance.lookup", () => {
  it("answers clean for an unlisted address, without sending a key", async () => {
    const address = freshAddress();
    const verdict = await api().lookup(address);
    expect(verdict).toEqual({ address, blocked: false, category: "clean", checked_at: expect.any(String) });
    expect(Number.isNaN(Date.parse(verdict.checked_at))).toBe(false);
    const call = kit.sandbox.calls("compliance.lookup").at(-1);
    expect(call?.path).toBe(`/apiv2/compliance/${address}`);
    expect(call?.headers["x-api-key"]).toBeUndefined();
  });

  it("reports an aml_risk entry with severity, reason code and label", async () => {
    const address = freshAddress();
    kit.sandbox.screening.addToList("aml_risk", address, {
      severity: "REVIEW",
      reason_code: "SANCTIONS_SCREENING",
      label: "Scam cluster",
    });
    const verdict = await api().lookup(address);
    expect(verdict).toMatchObject({
      address,
      blocked: true,
      category: "aml_risk",
      severity: "REVIEW",
      reason_code: "SANCTIONS_SCREENING",
      label: "Scam cluster",
    });
  });

  it("gives the most serious category when an address is in several sets", async () => {
    const address = freshAddress();
    const category = async () => (await api().lookup(address)).category;
    kit.sandbox.screening.addToList("spam_sender", address);
    expect(await category()).toBe("spam_sender");
    kit.sandbox.screening.addToList("smart_contract", address);
    expect(await category()).toBe("smart_contract");
    kit.sandbox.screening.addToList("usdt_frozen", address);
    const frozen = await api().lookup(address);
    expect(frozen).toMatchObject({ blocked: true, category: "usdt_frozen" });
    expect(frozen.severity).toBeUndefined();
    kit.sandbox.screening.addToList("aml_risk", address, {
      severity: "BLOCK",
      reason_code: "OFAC_SDN",
      label: "SDN",
    });
    expect(await category()).toBe("aml_risk");
  });

  it("1001: invalid TRON address format", async () => {
    for (const bad of ["0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "T123", `T${"0".repeat(33)}`]) {
      const error = await rejection(api().lookup(bad));
      expect(error).toMatchObject({
        family: "compliance",
        endpoint: "compliance.lookup",
        httpStatus: 400,
        code: 1001,
        retryable: false,
        message: "invalid TRON address format",
      });
    }
  });

  it("5003: cache backend unavailable, retryable and retried", async () => {
    kit.sandbox.screening.setComplianceUnavailable(true);
    try {
      const address = freshAddress();
      const error = await rejection(api({ maxAttempts: 2 }).lookup(address));
      expect(error).toMatchObject({ family: "compliance", httpStatus: 503, code: 5003, retryable: true });
      expect(kit.sandbox.calls("compliance.lookup").filter((c) => c.path.endsWith(address))).toHaveLength(2);
      const stats = await rejection(api().stats());
      expect(stats).toMatchObject({ httpStatus: 503, code: 5003 });
      const batch = await rejection(api().batch([address]));
      expect(batch).toMatchObject({ endpoint: "compliance.batch", httpStatus: 503, code: 5003 });
    } finally {
      kit.sandbox.screening.setComplianceUnavailable(false);
    }
  });
});

describe("compliance.stats", () => {
  it("counts each set and moves the revision when a set changes", async () => {
    const before = await api().stats();
    expect(before.total).toBe(
      before.aml_risk + before.usdt_frozen + before.smart_contract + before.spam_sender,
    );
    kit.sandbox.screening.addToList("spam_sender", freshAddress());
    const after = await api().stats();
    expect(after.spam_sender).toBe(before.spam_sender + 1);
    expect(after.total).toBe(before.total + 1);
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(kit.sandbox.calls("compliance.stats").at(-1)?.headers["x-api-key"]).toBeUndefined();
  });
});

describe("compliance.batch", () => {
  it("keeps the request order and marks malformed entries invalid without failing the batch", async () => {
    const listed = freshAddress();
    const clean = freshAddress();
    kit.sandbox.screening.addToList("smart_contract", listed);
    const batch = await api().batch([clean, "not-an-address", listed]);

    expect(batch.count).toBe(3);
    expect(batch.results.map((r) => [r.address, r.category, r.blocked])).toEqual([
      [clean, "clean", false],
      ["not-an-address", "invalid", false],
      [listed, "smart_contract", true],
    ]);
    expect(batch.results[1]?.error).toBe("invalid TRON address format");
    const call = kit.sandbox.calls("compliance.batch").at(-1);
    expect(call?.headers["x-api-key"]).toBe(DEFAULT_API_KEY);
    expect(call?.body).toEqual({ addresses: [clean, "not-an-address", listed] });
  });

  it("refuses more than 1000 addresses locally, before any call", async () => {
    const before = kit.sandbox.calls("compliance.batch").length;
    const tooMany = Array.from({ length: COMPLIANCE_BATCH_MAX + 1 }, () => "T");
    const error = await api()
      .batch(tooMany)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: "not_sent" });
    expect((error as Error).message).toContain("at most 1000");
    expect(kit.sandbox.calls("compliance.batch")).toHaveLength(before);
  });

  it("takes exactly 1000 addresses", async () => {
    const addresses = Array.from({ length: COMPLIANCE_BATCH_MAX }, (_, i) => tronAddressFrom(`batch-${i}`));
    const batch = await api().batch(addresses);
    expect(batch.count).toBe(1000);
    expect(batch.results.at(-1)?.address).toBe(addresses.at(-1));
  });

  it("needs the key, and the key's IP whitelist applies", async () => {
    const missing = await rejection(api({ apiKey: "" }).batch([freshAddress()]));
    expect(missing).toMatchObject({ family: "compliance", httpStatus: 401, code: -1, retryable: false });
    const wrongIp = await rejection(api({ realIp: "198.51.100.9" }).batch([freshAddress()]));
    expect(wrongIp).toMatchObject({ httpStatus: 401, code: -1 });
  });
});

describe("compliance rate limits", () => {
  it("decodes the bare 429 of the open lookup (10 per second per IP)", async () => {
    kit.sandbox.setRateLimits(true);
    try {
      const client = api();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 11 }, () => client.lookup(freshAddress())),
      );
      const rejected = outcomes.filter((o) => o.status === "rejected");
      expect(rejected).toHaveLength(1);
      const error = (rejected[0] as PromiseRejectedResult).reason as ServiceError;
      expect(error).toMatchObject({
        family: "compliance",
        kind: "rate_limited",
        httpStatus: 429,
        retryable: true,
      });
      expect(error.message).toBe("API rate limit exceeded");
      // The batch bucket is separate and keyed by the API key: still open.
      await expect(client.batch([freshAddress()])).resolves.toMatchObject({ count: 1 });
    } finally {
      kit.sandbox.setRateLimits(false);
    }
  });
});
