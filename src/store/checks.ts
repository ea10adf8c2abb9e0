/**
 * Checks a TTL the same way for both stores, so a caller's mistake (0, negative, NaN) fails in
 * the demo exactly as it would on Redis instead of silently creating a key that never expires.
 * Fractions round up: Redis PX takes whole milliseconds.
 */
export function checkTtlMs(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
  return Math.ceil(ttlMs);
}

/** Redis refuses non-integer increments; the memory store mirrors it. */
export function checkIncrement(by: number): void {
  if (!Number.isSafeInteger(by)) throw new RangeError(`incrBy needs an integer, got ${by}`);
}

/** `LTRIM key 0 -1` would keep everything, so a length below 1 is a caller's mistake in both stores. */
export function checkMaxLength(maxLength: number): number {
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`maxLength must be a whole number of at least 1, got ${maxLength}`);
  }
  return maxLength;
}

/** A reservation adds a positive whole amount against a whole, non-negative limit. */
export function checkReservation(amount: number, limit: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new RangeError(`reserveWithin needs a positive integer amount, got ${amount}`);
  }
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`reserveWithin needs a non-negative integer limit, got ${limit}`);
  }
}
