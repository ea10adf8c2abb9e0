import { describe, expect, it } from "vitest";
import {
  capList,
  clip,
  formatAmount,
  formatDecimal,
  formatScore,
  formatShare,
  formatTime,
  isZeroDecimal,
  moreLine,
  plural,
  shortAddress,
} from "../../src/core/format.js";

describe("render formatters", () => {
  it("writes decimal strings without trailing zeros, grouped, never through a float", () => {
    expect(formatAmount("3.266667")).toBe("3.266667 TRX");
    expect(formatAmount("1.500000")).toBe("1.5 TRX");
    expect(formatAmount("0.000000")).toBe("0 TRX");
    expect(formatAmount("1234567.100000", "USDT")).toBe("1,234,567.1 USDT");
    expect(formatDecimal("9007199254740993.000001")).toBe("9,007,199,254,740,993.000001");
    expect(formatDecimal("-1234.5")).toBe("-1,234.5");
    expect(formatDecimal("n/a")).toBe("n/a");
  });

  it("tells zero decimals", () => {
    expect(isZeroDecimal("0.000")).toBe(true);
    expect(isZeroDecimal("0.001")).toBe(false);
    expect(isZeroDecimal("x")).toBe(false);
  });

  it("turns share fractions into percentages with one decimal; tiny shares never read as zero", () => {
    expect(formatShare("0.523")).toBe("52.3%");
    expect(formatShare("0.450")).toBe("45%");
    expect(formatShare("1.000")).toBe("100%");
    expect(formatShare("0")).toBe("0%");
    expect(formatShare("0.0004")).toBe("<0.1%");
    expect(formatShare("0.12345")).toBe("12.3%");
    expect(formatShare("0.12355")).toBe("12.4%");
  });

  it("shows a score on the provider's own scale; null means no triggers", () => {
    expect(formatScore("9.80", { max: 10 })).toBe("9.8 / 10");
    expect(formatScore("84.00", { max: 100 })).toBe("84 / 100");
    expect(formatScore(null, { max: 10 })).toBe("no triggers");
  });

  it("shortens long addresses in the middle and keeps short ones", () => {
    expect(shortAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe("TR7NHqje…Lj6t");
    expect(shortAddress("0.0.12345")).toBe("0.0.12345");
  });

  it("writes ISO times (microseconds included) as UTC", () => {
    expect(formatTime("2025-03-01T12:00:05.123456Z")).toBe("2025-03-01 12:00:05 UTC");
    expect(formatTime("2025-03-01T12:00:05Z")).toBe("2025-03-01 12:00:05 UTC");
    expect(formatTime("yesterday")).toBe("yesterday");
  });

  it("caps lists and counts the rest", () => {
    expect(capList([1, 2, 3, 4], 3)).toEqual({ shown: [1, 2, 3], more: 1 });
    expect(capList([1], 3)).toEqual({ shown: [1], more: 0 });
    expect(moreLine(1234)).toBe("… and 1,234 more");
    expect(plural(1, "address", "addresses")).toBe("1 address");
    expect(plural(1000, "address", "addresses")).toBe("1,000 addresses");
    expect(clip("a\nvery   long\tname", 12)).toBe("a very long…");
  });
});
