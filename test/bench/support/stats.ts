/** Nearest-rank percentile (p in 0..100) of unsorted samples; null when there are none. */
export function percentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? null;
}

export function median(samples: readonly number[]): number | null {
  return percentile(samples, 50);
}

export function max(samples: readonly number[]): number | null {
  return samples.length === 0 ? null : samples.reduce((a, b) => Math.max(a, b));
}

export function round(value: number | null | undefined, digits = 1): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** value / baseline, or null when either is missing or the baseline is zero. */
export function ratio(value: number | null, baseline: number | null): number | null {
  if (value === null || baseline === null || baseline === 0) return null;
  return round(value / baseline, 2);
}
