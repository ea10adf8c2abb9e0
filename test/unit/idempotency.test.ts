import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  isClientRequestId,
  isOrder5mIdempotencyKey,
  isRequestIdempotencyKey,
  order5mIdempotencyKey,
  requestIdempotencyKey,
} from "../../src/service/idempotency.js";

const parts = {
  confirmationId: "confirm-1",
  period: "5m" as const,
  receiveAddress: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
  amount: 65_000,
};

describe("order5mIdempotencyKey", () => {
  it("is 64 lowercase hex: sha256 of the canonical text of its parts", () => {
    const key = order5mIdempotencyKey(parts);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const canonical = JSON.stringify([
      "opsbot.energy-order.v1",
      "5m",
      parts.receiveAddress,
      65_000,
      "confirm-1",
    ]);
    expect(key).toBe(createHash("sha256").update(canonical).digest("hex"));
    expect(isOrder5mIdempotencyKey(key)).toBe(true);
  });

  it("is stable for the same parts and differs when any part differs, the period included", () => {
    const key = order5mIdempotencyKey(parts);
    expect(order5mIdempotencyKey({ ...parts })).toBe(key);
    const variants = [
      { ...parts, period: "1h" as const },
      { ...parts, amount: 65_001 },
      { ...parts, receiveAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" },
      { ...parts, confirmationId: "confirm-2" },
    ];
    const keys = new Set(variants.map(order5mIdempotencyKey));
    expect(keys.size).toBe(4);
    expect(keys.has(key)).toBe(false);
  });

  it("cannot be confused by separators inside a part", () => {
    const a = order5mIdempotencyKey({ ...parts, confirmationId: 'a","b' });
    const b = order5mIdempotencyKey({
      ...parts,
      confirmationId: "a",
      receiveAddress: `${parts.receiveAddress}","b`,
    });
    expect(a).not.toBe(b);
  });

  it("refuses a fractional amount", () => {
    expect(() => order5mIdempotencyKey({ ...parts, amount: 65_000.5 })).toThrow(RangeError);
  });
});

describe("requestIdempotencyKey", () => {
  it("gives 12-128 characters of the allowed alphabet, deterministically", () => {
    for (const seed of ["x", "order 42 for chat #7 / 😀", "a".repeat(500), "plain.seed:1"]) {
      const key = requestIdempotencyKey(seed);
      expect(key).toMatch(/^[A-Za-z0-9._:-]{12,128}$/);
      expect(isRequestIdempotencyKey(key)).toBe(true);
      expect(requestIdempotencyKey(seed)).toBe(key);
    }
  });

  it("keeps a readable prefix and does not collide when unsafe characters map to the same text", () => {
    expect(requestIdempotencyKey("batch 7").startsWith("batch-7:")).toBe(true);
    expect(requestIdempotencyKey("batch 7")).not.toBe(requestIdempotencyKey("batch/7"));
  });

  it("refuses an empty seed", () => {
    expect(() => requestIdempotencyKey("")).toThrow(RangeError);
  });
});

describe("validators", () => {
  it("order5m keys: exactly 64 lowercase hex", () => {
    expect(isOrder5mIdempotencyKey("a".repeat(64))).toBe(true);
    expect(isOrder5mIdempotencyKey("A".repeat(64))).toBe(false);
    expect(isOrder5mIdempotencyKey("a".repeat(63))).toBe(false);
    expect(isOrder5mIdempotencyKey("a".repeat(65))).toBe(false);
    expect(isOrder5mIdempotencyKey(`${"a".repeat(63)}g`)).toBe(false);
  });

  it("request keys: 12 to 128 of A-Z a-z 0-9 . _ : -", () => {
    expect(isRequestIdempotencyKey("abcdefghijk")).toBe(false);
    expect(isRequestIdempotencyKey("abcdefghijkl")).toBe(true);
    expect(isRequestIdempotencyKey("A.b_c:d-e012")).toBe(true);
    expect(isRequestIdempotencyKey("x".repeat(128))).toBe(true);
    expect(isRequestIdempotencyKey("x".repeat(129))).toBe(false);
    expect(isRequestIdempotencyKey("abcdefghijk/")).toBe(false);
    expect(isRequestIdempotencyKey("abcdefghijk ")).toBe(false);
  });

  it("clientRequestId: the same alphabet from 8 characters", () => {
    expect(isClientRequestId("abcdefg")).toBe(false);
    expect(isClientRequestId("abcdefgh")).toBe(true);
    expect(isClientRequestId("abcdefg!")).toBe(false);
  });
});
