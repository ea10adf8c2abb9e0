import { describe, expect, it } from "vitest";
import { SANDBOX_LIMITS } from "../../src/sandbox/rate-limits.js";
import { RATE_BUCKETS } from "../../src/service/rate-limits.js";

/**
 * The sandbox's limits and the client's limits are two tables, each copied from the spec on its own
 * side. They must say the same thing: a number mistyped on either side fails here instead of being
 * wrong on both sides at once.
 */
const asPlain = (table: Record<string, readonly { points: number; durationMs: number }[]>) =>
  Object.fromEntries(
    Object.entries(table).map(([name, windows]) => [
      name,
      windows.map((w) => ({ points: w.points, durationMs: w.durationMs })),
    ]),
  );

describe("sandbox rate limits", () => {
  it("name the same buckets with the same windows as the client's table", () => {
    expect(Object.keys(SANDBOX_LIMITS).sort()).toEqual(Object.keys(RATE_BUCKETS).sort());
    expect(asPlain(SANDBOX_LIMITS)).toEqual(asPlain(RATE_BUCKETS));
  });

  it("hold the spec's AML figures: 5/s and 150/min shared, v1 2/s and 30/min", () => {
    expect(SANDBOX_LIMITS.aml).toEqual([
      { points: 5, durationMs: 1_000 },
      { points: 150, durationMs: 60_000 },
    ]);
    expect(SANDBOX_LIMITS.aml_v1).toEqual([
      { points: 2, durationMs: 1_000 },
      { points: 30, durationMs: 60_000 },
    ]);
  });
});
