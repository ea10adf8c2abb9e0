import { describe, expect, it } from "vitest";
import {
  COMPLIANCE_MAX_ADDRESSES,
  parseComplianceArgs,
} from "../../../src/core/compliance/compliance-args.js";
import { errorOf, parsed } from "../parse/error-line.js";

const A = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const B = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";
const C = "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb";
const TYPO = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u";
const USAGE = ": use compliance <address> [address …], separated by spaces or commas";

describe("parseComplianceArgs", () => {
  it("takes one address", () => {
    expect(parsed(parseComplianceArgs([A]))).toEqual({ addresses: [A], invalid: [] });
  });

  it("splits on spaces and commas, drops empty pieces and keeps the order", () => {
    expect(parsed(parseComplianceArgs([`${A},${B}`, ",", `${C},`, " "])).addresses).toEqual([A, B, C]);
    expect(parsed(parseComplianceArgs([`${A}, ${B}\n${C}`])).addresses).toEqual([A, B, C]);
  });

  it("removes duplicates, keeping the first occurrence", () => {
    expect(parsed(parseComplianceArgs([B, A, B, C, A])).addresses).toEqual([B, A, C]);
  });

  it("keeps locally invalid addresses in the list and marks them with the reason", () => {
    const result = parsed(parseComplianceArgs([A, TYPO, "0xabc", B]));
    expect(result.addresses).toEqual([A, TYPO, "0xabc", B]);
    expect(result.invalid.map((i) => i.address)).toEqual([TYPO, "0xabc"]);
    expect(result.invalid[0]?.error).toContain("checksum failed");
    expect(result.invalid[1]?.error).toContain("(it does not start with T)");
  });

  it("accepts exactly 1000 distinct addresses", () => {
    const many = Array.from(
      { length: COMPLIANCE_MAX_ADDRESSES },
      (_, i) => `T${String(i).padStart(33, "x")}`,
    );
    const result = parsed(parseComplianceArgs(many));
    expect(result.addresses).toHaveLength(1000);
    expect(result.invalid).toHaveLength(1000);
  });

  it("counts after removing duplicates", () => {
    const many = Array.from({ length: 1500 }, (_, i) => `T${i % 1000}`);
    expect(parsed(parseComplianceArgs(many)).addresses).toHaveLength(1000);
  });

  it("rejects more than 1000 distinct addresses", () => {
    const many = Array.from({ length: 1204 }, (_, i) => `T${i}`);
    expect(errorOf(parseComplianceArgs([many.join(",")]))).toBe(
      "1,204 different addresses given: one check takes at most 1,000, send the rest in another message",
    );
  });

  it("rejects no address at all", () => {
    expect(errorOf(parseComplianceArgs([]))).toBe(`no address given${USAGE}`);
    expect(errorOf(parseComplianceArgs([" , ,"]))).toBe(`no address given${USAGE}`);
  });
});
