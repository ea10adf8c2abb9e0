import { describe, expect, it } from "vitest";
import {
  COMPLIANCE_FLAGGED_MAX,
  type ComplianceRow,
  countsLine,
  renderBatch,
  renderVerdict,
} from "../../../src/core/compliance/compliance-render.js";
import type { ComplianceVerdict } from "../../../src/service/compliance.js";
import { replyText } from "../../support/core-harness.js";

const AT = "2025-03-01T12:00:00Z";
const verdict = (address: string, extra: Partial<ComplianceVerdict> = {}): ComplianceVerdict => ({
  address,
  blocked: false,
  category: "clean",
  checked_at: AT,
  ...extra,
});
const blocked = (address: string, category: ComplianceVerdict["category"]) =>
  verdict(address, { blocked: true, category });

describe("compliance rendering", () => {
  it("counts by category, blocked first", () => {
    const rows: ComplianceRow[] = [
      { address: "a", verdict: blocked("a", "aml_risk") },
      { address: "b", verdict: blocked("b", "spam_sender") },
      { address: "c", verdict: blocked("c", "aml_risk") },
      { address: "d", verdict: verdict("d") },
      { address: "e", localError: "bad" },
      { address: "f", verdict: verdict("f", { category: "invalid", error: "invalid TRON address format" }) },
    ];
    expect(countsLine(rows)).toBe("3 blocked (aml_risk 2, spam_sender 1) · 1 clean · 2 invalid");
  });

  it("lists every address of a small batch in order, with the service's error for its invalid entries", () => {
    const rows: ComplianceRow[] = [
      { address: "T1", verdict: verdict("T1") },
      { address: "x", verdict: verdict("x", { category: "invalid", error: "invalid TRON address format" }) },
    ];
    const text = replyText(renderBatch(rows, AT));
    expect(text).toContain("1. T1 — clean\n2. x — invalid: invalid TRON address format");
    expect(text).toContain("Checked 2025-03-01 12:00:00 UTC.");
    expect(text).not.toContain("not listed");
  });

  it("keeps a large batch small: flagged ones only, capped, in blocks of at most 10 lines", () => {
    const rows: ComplianceRow[] = Array.from({ length: 1000 }, (_, i) => {
      const address = `T${String(i).padStart(33, "x")}`;
      return i % 10 === 0
        ? { address, verdict: blocked(address, "usdt_frozen") }
        : { address, verdict: verdict(address) };
    });
    const reply = renderBatch(rows);
    const lines = replyText(reply)
      .split("\n")
      .filter((l) => /^\d+\. /.test(l));
    expect(lines).toHaveLength(COMPLIANCE_FLAGGED_MAX);
    expect(lines[1]).toMatch(/^11\. T/);
    expect(replyText(reply)).toContain(`… and ${100 - COMPLIANCE_FLAGGED_MAX} more`);
    const textBlocks = reply.blocks.filter((b) => b.type === "text");
    for (const block of textBlocks) {
      expect(replyText({ ...reply, blocks: [block] }).split("\n").length).toBeLessThanOrEqual(10);
    }
    expect(reply.summary).toBe(
      "Compliance check of 1,000 addresses: 100 blocked (usdt_frozen 100) · 900 clean",
    );
  });

  it("says a clean single address in one positive line", () => {
    const reply = renderVerdict(verdict("TXYZ"));
    expect(reply.summary).toBe("TXYZ is clean: not on any deny list.");
    expect(reply.blocks).toHaveLength(2);
  });
});
