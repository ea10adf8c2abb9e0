import { describe, expect, it } from "vitest";
import { withDeadline } from "../../src/clock.js";

/**
 * One deadline for a piece of I/O: it aborts work that takes longer (as a TimeoutError, which the
 * callers report as a timeout), and lets go of work that finished: its signal is never aborted
 * later, so nothing listening to it is kept for the rest of the time.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("withDeadline", () => {
  it("aborts work that outlasts it, with a TimeoutError", async () => {
    const error = await withDeadline(
      30,
      (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
        ),
    ).catch((e: unknown) => e);
    expect((error as Error).name).toBe("TimeoutError");
  });

  it("answers what the work answered and never aborts its signal afterwards", async () => {
    let kept: AbortSignal | undefined;
    const answer = await withDeadline(30, async (signal) => {
      kept = signal;
      return "answered";
    });
    expect(answer).toBe("answered");
    await sleep(80);
    expect(kept?.aborted).toBe(false);
  });

  it("clears its timer when the work fails too", async () => {
    let kept: AbortSignal | undefined;
    await expect(
      withDeadline(30, async (signal) => {
        kept = signal;
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await sleep(80);
    expect(kept?.aborted).toBe(false);
  });
});
