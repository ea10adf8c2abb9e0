import { describe, expect, it } from "vitest";
import { DEMO_ADDRESSES, tronAddressFrom } from "../../../src/sandbox/families/screening.js";
import { type CoreHarness, replyText, useCoreHarness, viewer } from "../../support/core-harness.js";

const harness = useCoreHarness();
let seq = 0;
const clean = (): string => tronAddressFrom(`core-compliance-${process.pid}-${seq++}`);
/** Passes the spec's pattern, fails the base58check checksum (the last character changed). */
const TYPO = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T";
const lookups = (h: CoreHarness) => h.sandbox.calls("compliance.lookup");
const batches = (h: CoreHarness) => h.sandbox.calls("compliance.batch");

describe("compliance: one address (open lookup)", () => {
  it("answers a clean address with a short positive line, for a viewer", async () => {
    const h = await harness.setup();
    const address = clean();
    const reply = await h.run(viewer, `compliance ${address}`);
    expect(reply.visibility).toBe("public");
    expect(reply.summary).toBe(`${address} is clean: not on any deny list.`);
    expect(replyText(reply)).toMatch(
      /^\S+ is clean: not on any deny list\.\nChecked \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
    );
    expect(lookups(h).map((c) => c.path)).toEqual([`/apiv2/compliance/${address}`]);
    expect(lookups(h)[0]?.headers["x-api-key"]).toBeUndefined();
    expect(batches(h)).toEqual([]);
  });

  it("shows a blocked address with category, severity, reason code and label", async () => {
    const h = await harness.setup();
    const reply = await h.run(viewer, `compliance ${DEMO_ADDRESSES.sanctioned}`);
    const body = replyText(reply);
    expect(body).toContain("Blocked: aml_risk");
    expect(body).toContain(`Address: ${DEMO_ADDRESSES.sanctioned}`);
    expect(body).toContain("Blocked: yes");
    expect(body).toContain("Category: aml_risk");
    expect(body).toContain("Severity: BLOCK");
    expect(body).toContain("Reason code: OFAC_SDN");
    expect(body).toContain("Label: OFAC SDN list");
    expect(body).toContain("The address is on the central deny list");
  });

  it("explains that a smart contract is a technical block, not an AML flag", async () => {
    const h = await harness.setup();
    const body = replyText(await h.run(viewer, `compliance ${DEMO_ADDRESSES.usdtContract}`));
    expect(body).toContain("Blocked: smart_contract");
    expect(body).toContain("not an AML risk flag");
    expect(body).not.toContain("Severity");
  });

  it("refuses a malformed address with one line and no call", async () => {
    const h = await harness.setup();
    const reply = await h.run(viewer, `compliance ${TYPO}`);
    expect(reply.visibility).toBe("private");
    expect(reply.summary).toMatch(/checksum failed/);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("5003: the deny-list cache is down", async () => {
    const h = await harness.setup();
    h.sandbox.screening.setComplianceUnavailable(true);
    const reply = await h.run(viewer, `compliance ${clean()}`);
    expect(reply.summary).toBe(
      "The deny-list lookup is temporarily unavailable (code 5003: its cache backend is down); try again in a minute.",
    );
    expect(lookups(h).map((c) => c.status)).toEqual([503]);
  });

  it("1001: the service rejects the address format", async () => {
    const h = await harness.setup();
    h.sandbox.inject("compliance.lookup", {
      kind: "reply",
      reply: { status: 400, json: { code: 1001, status: "error", msg: "invalid TRON address format" } },
    });
    const reply = await h.run(viewer, `compliance ${clean()}`);
    expect(reply.summary).toBe(
      "The service says this is not a valid TRON address (code 1001): a TRON address starts with T and has 34 characters.",
    );
  });

  it("429: the service is busy", async () => {
    const h = await harness.setup();
    h.sandbox.inject("compliance.lookup", {
      kind: "reply",
      reply: { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "3" } },
    });
    const reply = await h.run(viewer, `compliance ${clean()}`);
    expect(reply.summary).toBe("The service is busy (rate limit); try again in 3 s.");
  });
});

describe("compliance: several addresses (batch)", () => {
  it("checks them in the order given, flags the malformed one in place and does not send it", async () => {
    const h = await harness.setup();
    const ok = clean();
    const given = [
      DEMO_ADDRESSES.sanctioned,
      ok,
      TYPO,
      DEMO_ADDRESSES.usdtFrozen,
      DEMO_ADDRESSES.usdtContract,
    ];
    const reply = await h.run(viewer, `compliance ${given.join(" ")}`);

    expect(batches(h).map((c) => c.body)).toEqual([
      { addresses: [DEMO_ADDRESSES.sanctioned, ok, DEMO_ADDRESSES.usdtFrozen, DEMO_ADDRESSES.usdtContract] },
    ]);
    expect(lookups(h)).toEqual([]);
    const body = replyText(reply);
    expect(body).toContain("Compliance check of 5 addresses");
    expect(body).toContain("3 blocked (aml_risk 1, usdt_frozen 1, smart_contract 1) · 1 clean · 1 invalid");
    const lines = body.split("\n").filter((l) => /^\d+\. /.test(l));
    expect(lines).toEqual([
      `1. ${DEMO_ADDRESSES.sanctioned} — blocked: aml_risk (BLOCK · OFAC_SDN · OFAC SDN list)`,
      `2. ${ok} — clean`,
      expect.stringMatching(/^3\. TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T — invalid: .*checksum failed/),
      `4. ${DEMO_ADDRESSES.usdtFrozen} — blocked: usdt_frozen`,
      `5. ${DEMO_ADDRESSES.usdtContract} — blocked: smart_contract`,
    ]);
  });

  it("makes no call when every address is malformed", async () => {
    const h = await harness.setup();
    const reply = await h.run(viewer, "compliance Tnotanaddress TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T");
    expect(replyText(reply)).toContain("0 clean · 2 invalid");
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("summarises a batch of 1000: counts, then only the blocked ones, capped", async () => {
    const h = await harness.setup();
    const addresses = Array.from({ length: 1000 }, () => clean());
    const listed = addresses.filter((_, i) => i % 25 === 3);
    for (const a of listed) h.sandbox.screening.addToList("aml_risk", a);
    const reply = await h.run(viewer, `compliance ${addresses.join(",")}`);

    expect(batches(h)).toHaveLength(1);
    expect(batches(h)[0]?.body).toEqual({ addresses });
    const body = replyText(reply);
    expect(reply.summary).toBe("Compliance check of 1,000 addresses: 40 blocked (aml_risk 40) · 960 clean");
    const lines = body.split("\n").filter((l) => /^\d+\. /.test(l));
    expect(lines).toHaveLength(30);
    expect(lines[0]).toBe(
      `4. ${listed[0]} — blocked: aml_risk (BLOCK · SANCTIONS_SCREENING · Sanctions screening match)`,
    );
    expect(body).toContain("… and 10 more");
    expect(body).toContain("Clean addresses are not listed.");
    expect(body.length).toBeLessThan(5_000);
    for (const block of reply.blocks)
      expect(replyText({ ...reply, blocks: [block] }).length).toBeLessThan(3_000);
  });

  it("5003 on the batch is one line", async () => {
    const h = await harness.setup();
    h.sandbox.screening.setComplianceUnavailable(true);
    const reply = await h.run(viewer, `compliance ${clean()} ${clean()}`);
    expect(reply.summary).toBe(
      "The deny-list lookup is temporarily unavailable (code 5003: its cache backend is down); try again in a minute.",
    );
    expect(batches(h).map((c) => c.status)).toEqual([503]);
  });
});
