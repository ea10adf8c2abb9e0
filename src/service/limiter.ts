import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { type Clock, sleep as realSleep, systemClock } from "../clock.js";
import { defineRedisScript } from "../store/redis-script.js";
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
 */
export interface RateLimiterOptions {
  /** Shared by every instance when given (use a connection of its own, not BullMQ's). */
  redis?: Redis;
  /**
   * Prepended as is to every key, e.g. `opsbot:rl:`. The service counts per IP or per key, so
   * bots that use different keys or IPs against one Redis need different prefixes.
   */
  keyPrefix: string;
  /** Memory: the clock. Redis: replaces the server's TIME (tests only; instances must agree). */
  now?: Clock;
  /** How the limiter waits; tests with a fake clock pass one that moves the clock. */
  sleep?: (ms: number) => Promise<void>;
  /** The limits by bucket; the spec's RATE_BUCKETS unless a test needs smaller ones. */
  windows?: Record<RateBucket, readonly RateWindow[]>;
  /**
   * Added to every window: a call recorded here reaches the service a little later, and not
   * always with the same delay, so the next window's first call must not overtake it there.
   */
  marginMs?: number;
}

export const DEFAULT_RATE_MARGIN_MS = 50;

interface Window {
  key: string;
  points: number;
  /** `durationMs` plus the margin: how long one call counts. */
  spanMs: number;
}

/** Returns 0 when the call was admitted, else the milliseconds until the blocking entry expires. */
type TryTake = (windows: readonly Window[]) => Promise<number>;

export function createRateLimiter(options: RateLimiterOptions): ServiceRateLimiter {
  const table = options.windows ?? RATE_BUCKETS;
  const marginMs = options.marginMs ?? DEFAULT_RATE_MARGIN_MS;
  const sleep = options.sleep ?? realSleep;
  const tryTake = options.redis
    ? redisTryTake(options.redis, options.now)
    : memoryTryTake(options.now ?? systemClock);
  // One waiter per bucket set and process polls; the rest queue behind it in arrival order
  // instead of all waking at once and racing each other for the same free slot.
  const queues = new Map<string, Promise<unknown>>();

  function windowsOf(buckets: readonly RateBucket[]): Window[] {
    return [...new Set(buckets)].sort().flatMap((bucket) => {
      const windows = table[bucket];
      if (!windows) throw new Error(`unknown rate-limit bucket: ${bucket}`);
      return windows.map((w) => ({
        key: `${options.keyPrefix}${bucket}:${w.durationMs}`,
        points: w.points,
        spanMs: w.durationMs + marginMs,
      }));
    });
  }

  async function takeWhenFree(windows: readonly Window[]): Promise<void> {
    for (;;) {
      const waitMs = await tryTake(windows);
      if (waitMs <= 0) return;
      await sleep(waitMs);
    }
  }

  return {
    async acquire(buckets) {
      const windows = windowsOf(buckets);
      if (windows.length === 0) return;
      const queueKey = windows.map((w) => w.key).join("|");
      const mine = (queues.get(queueKey) ?? Promise.resolve()).then(() => takeWhenFree(windows));
      const settled = mine.catch(() => undefined);
      queues.set(queueKey, settled);
      void settled.then(() => {
        if (queues.get(queueKey) === settled) queues.delete(queueKey);
      });
      return mine;
    },
  };
}

// KEYS: one sorted set per window. ARGV: member id, now in ms ('' = Redis TIME, which every
// instance shares), then points and span for each key. Scores are admission times.
const slidingLogScript = defineRedisScript(`
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local wait = 0
for i, key in ipairs(KEYS) do
  local points = tonumber(ARGV[1 + 2 * i])
  local span = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - span)
  local count = redis.call('ZCARD', key)
  if count >= points then
    local blocking = redis.call('ZRANGE', key, count - points, count - points, 'WITHSCORES')
    local free = tonumber(blocking[2]) + span - now
    if free > wait then wait = free end
  end
end
if wait > 0 then return math.ceil(wait) end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[2 + 2 * i])))
end
return 0
`);

function redisTryTake(redis: Redis, now: Clock | undefined): TryTake {
  return async (windows) => {
    const args = [randomUUID(), now ? now() : "", ...windows.flatMap((w) => [w.points, w.spanMs])];
    const keys = windows.map((w) => w.key);
    return Number(await slidingLogScript.run(redis, keys, args));
  };
}

/** The same algorithm in process memory: each call runs without an await, so it is atomic. */
function memoryTryTake(now: Clock): TryTake {
  const logs = new Map<string, number[]>();
  return async (windows) => {
    const t = now();
    let waitMs = 0;
    for (const w of windows) {
      const log = (logs.get(w.key) ?? []).filter((at) => at > t - w.spanMs);
      logs.set(w.key, log);
      const blocking = log[log.length - w.points];
      if (blocking !== undefined) waitMs = Math.max(waitMs, Math.ceil(blocking + w.spanMs - t));
    }
    if (waitMs > 0) return waitMs;
    for (const w of windows) logs.get(w.key)?.push(t);
    return 0;
  };
}
