/**
 * What a rate limiter over the sliding logs (sliding-log.ts) promises its callers: the service's
 * published limits (src/service/limiter.ts) and the bot's own limits alike (an agent's calls a
 * minute on `/mcp`, an address's requests a minute on `/verify`).
 */
interface AcquireOptions {
  /**
   * Give up instead of waiting longer than this (0: only a slot free right now): the call fails
   * at once with `NoFreeSlotError`, taking nothing. For a person waiting on an answer, who is
   * better served by a cached copy or another endpoint than by a queue.
   */
  maxWaitMs?: number;
}

/**
 * The admitted call: `counted()`, once the other side has surely counted the call (its answer came,
 * or its request was written a moment ago), moves its entry to that moment.
 */
export interface RateSlot {
  counted(): Promise<void>;
}

/** Waits until one call may be made in every named bucket. Shared by all instances when Redis-backed. */
export interface RateLimiter<B extends string> {
  acquire(buckets: readonly B[], options?: AcquireOptions): Promise<RateSlot | undefined>;
}

/** No slot is free within the caller's `maxWaitMs`; `waitMs`: until one frees. */
export class NoFreeSlotError extends Error {
  override readonly name = "NoFreeSlotError";
  constructor(
    readonly buckets: readonly string[],
    readonly waitMs: number,
  ) {
    super(`no free rate-limit slot in ${buckets.join("+")} for ${waitMs} ms`);
  }
}
