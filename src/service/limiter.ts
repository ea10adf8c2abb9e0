import { randomUUID } from "node:crypto";
import { type Clock, sleep as realSleep, systemClock } from "../clock.js";
import { NoFreeSlotError, type RateSlot } from "../store/rate-limit.js";
import type { RedisClient } from "../store/redis-connect.js";
import { type LogWindow, memorySlidingLog, redisSlidingLog } from "../store/sliding-log.js";
import { RATE_BUCKETS, type RateBucket, type RateWindow, type ServiceRateLimiter } from "./rate-limits.js";

/**
 * The service's rate limits, enforced before each call so that polling never earns a 429.
 *
 * Sliding log, all or nothing: a call is admitted only when every window of every named bucket
 * holds fewer than `points` calls in its last `durationMs`, and then it is recorded in all of
 * them at once (one Lua script on Redis, one synchronous step in memory). A refusal takes
 * nothing, so one window never leaks points while another one makes the caller wait.
 *
 * Why not rate-limiter-flexible: its limiters are fixed windows that start at the first call,
 * which admit up to twice `points` in a sliding `durationMs` across a window boundary (the
 * sandbox, like any sliding-log server, answers that with 429); RateLimiterUnion consumes all
 * limiters in parallel and keeps the points of those that accepted when another refuses; and
 * RateLimiterMemory reads Date.now, so tests could not move time.
 *
 * An entry is first stamped when the call is admitted, then moved to when the service has surely
 * counted it (`RateSlot.counted`: its answer, or shortly after its request was written, whichever
 * comes first; see src/service/transport.ts; not moved when that is within the margin), so the
 * next window never opens before the service's own does, however late a busy event loop sent the
 * request. Waiting for the answer
 * alone would hold each slot for a slow call's whole duration (order5m: 0.5 to 2 s) and halve
 * what that endpoint's limit allows.
 */
/**
 * `B`: the bucket names. The service's are RATE_BUCKETS; other limits of the bot (an agent's calls
 * a minute, src/mcp/) name their own buckets and pass their `windows`.
 */
export interface RateLimiterOptions<B extends string = RateBucket> {
  /** Shared by every instance when given (use a connection of its own, not BullMQ's). */
  redis?: RedisClient;
  /**
   * Prepended as is to every key, e.g. `opsbot:rl:`. The service counts per IP or per key, so
   * bots that use different keys or IPs against one Redis need different prefixes. On a
   * cluster it must carry a hash tag (`{opsbot:rl}:`): one call's windows meet in one script.
   */
  keyPrefix: string;
  /** Memory: the clock. Redis: replaces the server's TIME (tests only; instances must agree). */
  now?: Clock;
  /** How the limiter waits; tests with a fake clock pass one that moves the clock. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The limits by bucket; the spec's RATE_BUCKETS unless a test needs smaller ones. A function for
   * buckets not known in advance (one per client address: every bucket has the same windows).
   */
  windows?: Record<B, readonly RateWindow[]> | ((bucket: B) => readonly RateWindow[]);
  /**
   * Added to every window: a call recorded here reaches the service a little later, and not
   * always with the same delay, so the next window's first call must not overtake it there.
   */
  marginMs?: number;
}

export const DEFAULT_RATE_MARGIN_MS = 50;
/** Window sets whose refusal is remembered before the past ones are swept. */
const KNOWN_WAITS_KEPT = 1_024;

type Window = LogWindow;

export function createRateLimiter<B extends string = RateBucket>(
  options: RateLimiterOptions<B>,
): ServiceRateLimiter<B> {
  const given = options.windows ?? (RATE_BUCKETS as Record<string, readonly RateWindow[]>);
  const windowsOfBucket = (bucket: B): readonly RateWindow[] | undefined =>
    typeof given === "function"
      ? given(bucket)
      : (given as Record<string, readonly RateWindow[] | undefined>)[bucket];
  const marginMs = options.marginMs ?? DEFAULT_RATE_MARGIN_MS;
  const sleep = options.sleep ?? realSleep;
  const clock = options.now ?? systemClock;
  const sliding = options.redis ? redisSlidingLog(options.redis, options.now) : memorySlidingLog(clock);
  const { restamp } = sliding;
  /**
   * When each window set is known to have no free slot before: a log only loses entries by
   * expiry (every instance only adds, and a restamp only moves an entry later), so a refusal's
   * wait, counted from before it was asked, is a time no slot can free before. A caller that will
   * not wait that long is refused here, without a round trip that could only refuse it too.
   */
  const noSlotBefore = new Map<string, number>();
  /** 0 when admitted, else the wait; `asked`: the time before it was asked (no later than an admission). */
  async function tryTake(windows: readonly Window[], id: string): Promise<{ waitMs: number; asked: number }> {
    const key = windows.map((w) => w.key).join("|");
    const asked = clock();
    const waitMs = await sliding.tryTake(windows, id);
    if (waitMs <= 0) noSlotBefore.delete(key);
    else noSlotBefore.set(key, Math.max(noSlotBefore.get(key) ?? 0, asked + waitMs));
    // Buckets per client address come and go: refusals long past are dropped now and then.
    if (noSlotBefore.size > KNOWN_WAITS_KEPT) {
      for (const [known, until] of noSlotBefore) if (until <= asked) noSlotBefore.delete(known);
    }
    return { waitMs, asked };
  }
  /** Milliseconds until a slot may be free, as far as this process already knows (0: ask). */
  function knownWait(windows: readonly Window[]): number {
    const key = windows.map((w) => w.key).join("|");
    const until = noSlotBefore.get(key);
    if (until === undefined) return 0;
    const waitMs = until - clock();
    if (waitMs <= 0) noSlotBefore.delete(key);
    return Math.max(0, waitMs);
  }
  // One waiter per bucket set and process polls; the rest queue behind it in arrival order
  // instead of all waking at once and racing each other for the same free slot.
  const queues = new Map<string, Promise<unknown>>();

  function windowsOf(buckets: readonly B[]): Window[] {
    return [...new Set(buckets)].sort().flatMap((bucket) => {
      const windows = windowsOfBucket(bucket);
      if (!windows) throw new Error(`unknown rate-limit bucket: ${bucket}`);
      return windows.map((w) => ({
        key: `${options.keyPrefix}${bucket}:${w.durationMs}`,
        points: w.points,
        spanMs: w.durationMs + marginMs,
      }));
    });
  }

  /** Answers when the admitting try was asked. */
  async function takeWhenFree(windows: readonly Window[], id: string): Promise<number> {
    for (;;) {
      const { waitMs, asked } = await tryTake(windows, id);
      if (waitMs <= 0) return asked;
      await sleep(waitMs);
    }
  }

  /** Not queued behind the waiters: a caller that will not wait tries the free slot now. */
  async function takeWithin(
    buckets: readonly B[],
    windows: readonly Window[],
    id: string,
    maxWaitMs: number,
  ): Promise<number> {
    let waited = 0;
    for (;;) {
      const known = knownWait(windows);
      if (known > 0 && waited + known > maxWaitMs) throw new NoFreeSlotError(buckets, known);
      const { waitMs, asked } = await tryTake(windows, id);
      if (waitMs <= 0) return asked;
      if (waited + waitMs > maxWaitMs) throw new NoFreeSlotError(buckets, waitMs);
      await sleep(waitMs);
      waited += waitMs;
    }
  }

  /**
   * A call the service counted within the margin of its admission needs no restamp: every window
   * already counts it for its duration plus the margin from admission, which is no earlier than
   * `asked`, so the next window still opens no earlier than the service's own.
   */
  const slotOf = (windows: readonly Window[], id: string, asked: number): RateSlot => ({
    counted: () => (clock() - asked <= marginMs ? Promise.resolve() : restamp(windows, id)),
  });

  return {
    async acquire(buckets, acquireOptions) {
      const windows = windowsOf(buckets);
      if (windows.length === 0) return undefined;
      const id = randomUUID();
      if (acquireOptions?.maxWaitMs !== undefined) {
        const asked = await takeWithin(buckets, windows, id, acquireOptions.maxWaitMs);
        return slotOf(windows, id, asked);
      }
      const queueKey = windows.map((w) => w.key).join("|");
      const mine = (queues.get(queueKey) ?? Promise.resolve()).then(() => takeWhenFree(windows, id));
      const settled = mine.catch(() => undefined);
      queues.set(queueKey, settled);
      void settled.then(() => {
        if (queues.get(queueKey) === settled) queues.delete(queueKey);
      });
      return slotOf(windows, id, await mine);
    },
  };
}
