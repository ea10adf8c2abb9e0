import { afterEach, describe, expect, it, vi } from "vitest";
import { within } from "../../src/clock.js";

/** The one "promise with a timeout" (src/clock.ts): its value in time, else what `late` says. */
describe("within", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers the promise's value when it settles first", async () => {
    await expect(within(Promise.resolve(7), 1_000)).resolves.toBe(7);
    await expect(within(Promise.reject(new Error("boom")), 1_000, () => 0)).rejects.toThrow("boom");
  });

  it("answers undefined, or what late() answers, when the time runs out; a late() that throws rejects", async () => {
    vi.useFakeTimers();
    const never = new Promise<number>(() => {});
    const plain = within(never, 500);
    const named = within(never, 500, () => "late" as const);
    const thrown = within(never, 500, () => {
      throw new Error("no answer within 500 ms");
    });
    const caught = expect(thrown).rejects.toThrow("no answer within 500 ms");
    await vi.advanceTimersByTimeAsync(500);
    await expect(plain).resolves.toBeUndefined();
    await expect(named).resolves.toBe("late");
    await caught;
    expect(vi.getTimerCount()).toBe(0);
  });
});
