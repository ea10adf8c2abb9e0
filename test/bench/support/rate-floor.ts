import type { RateWindow } from "../../../src/service/rate-limits.js";

/**
 * The earliest time the last of N reads can be made under sliding-window limits, when read i
 * may not happen before `readyAt[i]` (the order is pending until then, so reading it earlier
 * gives no result). Greedy in order of readiness, each read at the first instant every window
 * has room — the sandbox's rule: a read at t counts until t + duration. Times in ms from 0.
 */
export function rateFloorMs(readyAt: readonly number[], windows: readonly RateWindow[]): number {
  const ready = readyAt.map((t) => Math.max(0, t)).sort((a, b) => a - b);
  const admitted: number[] = [];
  for (const earliest of ready) {
    let t = Math.max(earliest, admitted.at(-1) ?? 0);
    for (let moved = true; moved; ) {
      moved = false;
      for (const w of windows) {
        const blocking = admitted[admitted.length - w.points];
        if (blocking !== undefined && blocking + w.durationMs > t) {
          t = blocking + w.durationMs;
          moved = true;
        }
      }
    }
    admitted.push(t);
  }
  return admitted.at(-1) ?? 0;
}
