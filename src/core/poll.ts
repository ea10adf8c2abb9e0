/**
 * What a tracked-work handler answers, and the delay ramp between polls. A leaf module of the core:
 * its tracking and commands use it, and the job system (src/jobs/scheduler.ts) runs what it says,
 * so the core never imports the job system.
 */
export type PollAnswer = { done: true } | { again: true; delayMs: number };

export interface PollDelayOptions {
  /** First delay (default 2 s: most screenings finish in seconds). */
  firstMs?: number;
  /** Cap on one delay (default 30 s). */
  maxMs?: number;
  /** Give up when the delays so far add up to more than this (default 10 min; reports need more). */
  totalMs?: number;
}

/**
 * The delay before poll number `attempt + 1` (attempt 0 = the first re-poll): a Fibonacci-like
 * ramp 2 s, 3 s, 5 s, 8 s, 13 s, 21 s, then the cap; `null` once the total budget is spent.
 */
export function pollDelayMs(attempt: number, options: PollDelayOptions = {}): number | null {
  const firstMs = options.firstMs ?? 2_000;
  const maxMs = options.maxMs ?? 30_000;
  const totalMs = options.totalMs ?? 10 * 60_000;
  let [term, next] = [firstMs, Math.round(firstMs * 1.5)];
  let spentMs = 0;
  for (let i = 0; ; i += 1) {
    const delay = Math.min(maxMs, term);
    spentMs += delay;
    if (spentMs > totalMs) return null;
    if (i >= attempt) return delay;
    [term, next] = [next, term + next];
  }
}
