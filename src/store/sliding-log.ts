import type { Clock } from "../clock.js";
import type { RedisClient } from "./redis-connect.js";
import { defineRedisScript } from "./redis-script.js";

/**
 * The rate limiter's sliding logs (src/service/limiter.ts): a call is admitted only when every
 * window holds fewer than `points` entries in its last `spanMs`, then recorded in all of them at
 * once, all or nothing: one Lua script on Redis (shared by every instance), one synchronous step
 * in memory.
 */
export interface LogWindow {
  key: string;
  points: number;
  /** `durationMs` plus the margin: how long one call counts. */
  spanMs: number;
}

export interface SlidingLog {
  /** Returns 0 when the call was admitted (as `id`), else the milliseconds until the blocking entry expires. */
  tryTake(windows: readonly LogWindow[], id: string): Promise<number>;
  /** Moves the entry `id` to now in every window that still holds it. */
  restamp(windows: readonly LogWindow[], id: string): Promise<void>;
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

// KEYS: the windows of an admitted call. ARGV: its member id, now ('' = Redis TIME), each span.
const restampScript = defineRedisScript(`
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
for i, key in ipairs(KEYS) do
  local score = redis.call('ZSCORE', key, ARGV[1])
  if score and tonumber(score) < now then
    redis.call('ZADD', key, 'XX', now, ARGV[1])
    redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[2 + i])))
  end
end
return 0
`);

export function redisSlidingLog(redis: RedisClient, now: Clock | undefined): SlidingLog {
  const at = () => (now ? now() : "");
  return {
    async tryTake(windows, id) {
      const args = [id, at(), ...windows.flatMap((w) => [w.points, w.spanMs])];
      return Number(
        await slidingLogScript.run(
          redis,
          windows.map((w) => w.key),
          args,
        ),
      );
    },
    async restamp(windows, id) {
      const args = [id, at(), ...windows.map((w) => w.spanMs)];
      await restampScript.run(
        redis,
        windows.map((w) => w.key),
        args,
      );
    },
  };
}

/** How many admissions between two sweeps of the memory logs for keys whose entries all expired. */
const SWEEP_EVERY = 1_024;

/**
 * The same algorithm in process memory: each call runs without an await, so it is atomic. Keys
 * whose entries have all expired are dropped now and then, so a limit per client address does
 * not keep every address ever seen.
 */
export function memorySlidingLog(now: Clock): SlidingLog {
  const logs = new Map<string, { id: string; at: number }[]>();
  const spans = new Map<string, number>();
  let calls = 0;
  const sweep = (t: number) => {
    for (const [key, log] of logs) {
      const newest = log[log.length - 1];
      if (newest === undefined || newest.at <= t - (spans.get(key) ?? 0)) {
        logs.delete(key);
        spans.delete(key);
      }
    }
  };
  return {
    async tryTake(windows, id) {
      const t = now();
      calls += 1;
      if (calls % SWEEP_EVERY === 0) sweep(t);
      for (const w of windows) spans.set(w.key, w.spanMs);
      let waitMs = 0;
      for (const w of windows) {
        const log = (logs.get(w.key) ?? []).filter((entry) => entry.at > t - w.spanMs);
        logs.set(w.key, log);
        const blocking = log[log.length - w.points];
        if (blocking !== undefined) waitMs = Math.max(waitMs, Math.ceil(blocking.at + w.spanMs - t));
      }
      if (waitMs > 0) return waitMs;
      for (const w of windows) logs.get(w.key)?.push({ id, at: t });
      return 0;
    },
    async restamp(windows, id) {
      const t = now();
      for (const w of windows) {
        const log = logs.get(w.key);
        const entry = log?.find((e) => e.id === id);
        if (!log || !entry || entry.at >= t) continue;
        entry.at = t;
        log.sort((a, b) => a.at - b.at);
      }
    },
  };
}
