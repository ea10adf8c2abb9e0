import { readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { Redis } from "ioredis";
import { request } from "undici";

/**
 * What a stretch of time cost, to tell the bot's work from the machine's: the Redis commands the
 * server ran (every client: the bot is the only one while a figure probes), the CPU time of the
 * bot's process (/proc, user + system) and what its own metrics say it spent in GC, and the GC
 * pauses of the bench's process (where the fake Slack stamps each quote's arrival).
 */
export interface WindowCosts {
  ms: number;
  redisCommands: number;
  /** The commands that grew most, `name: count`. */
  topCommands: string[];
  /** The time Redis spent running them (its own `usec`), in ms, and the commands that took most. */
  redisMs: number;
  topRedisTime: string[];
  botCpuMs: number;
  botGcMs: number;
  benchGcMs: number;
  benchGcMaxMs: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

async function commandCounts(redis: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const info = await redis.info("commandstats");
  const counts = new Map<string, { calls: number; usec: number }>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    counts.set(match[1] ?? "", { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return counts;
}

/** The sum of `opsbot_nodejs_gc_duration_seconds_sum` over every kind, in ms (NaN if unreadable). */
async function gcMs(origin: string): Promise<number> {
  try {
    const reply = await request(`${origin}/metrics`);
    const text = await reply.body.text();
    let seconds = 0;
    for (const match of text.matchAll(/^\w*nodejs_gc_duration_seconds_sum\{[^}]*\} ([\d.eE+-]+)$/gm)) {
      seconds += Number(match[1]);
    }
    return seconds * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Starts measuring; `end()` answers what the stretch since cost. */
export async function costWindow(
  redisUrl: string,
  bot: { pid: number; origin: string },
): Promise<{ end(): Promise<WindowCosts> }> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  const gcPauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses.push(entry.duration);
  });
  observer.observe({ entryTypes: ["gc"] });
  const t0 = performance.now();
  const [commands0, gc0] = await Promise.all([commandCounts(redis), gcMs(bot.origin)]);
  const cpu0 = cpuMs(bot.pid);
  return {
    async end() {
      const cpu1 = cpuMs(bot.pid);
      const [commands1, gc1] = await Promise.all([commandCounts(redis), gcMs(bot.origin)]);
      const ms = performance.now() - t0;
      observer.disconnect();
      await redis.quit();
      const grown = [...commands1]
        .filter(([name]) => name !== "info")
        .map(
          ([name, n]) =>
            [
              name,
              n.calls - (commands0.get(name)?.calls ?? 0),
              n.usec - (commands0.get(name)?.usec ?? 0),
            ] as const,
        )
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1]);
      const byTime = [...grown].sort((a, b) => b[2] - a[2]);
      return {
        ms,
        // INFO itself (two calls) is not the bot's.
        redisCommands: grown.reduce((sum, [, n]) => sum + n, 0),
        topCommands: grown.slice(0, 6).map(([name, n]) => `${name}: ${n}`),
        redisMs: grown.reduce((sum, [, , usec]) => sum + usec, 0) / 1000,
        topRedisTime: byTime
          .slice(0, 4)
          .map(([name, n, usec]) => `${name} ${Math.round(usec / n)} µs × ${n}`),
        botCpuMs: cpu1 - cpu0,
        botGcMs: gc1 - gc0,
        benchGcMs: gcPauses.reduce((a, b) => a + b, 0),
        benchGcMaxMs: gcPauses.reduce((a, b) => Math.max(a, b), 0),
      };
    },
  };
}
