import { afterEach, describe, expect, it } from "vitest";
import { sleep } from "../../src/clock.js";
import { createRateLimiter, DEFAULT_RATE_MARGIN_MS } from "../../src/service/limiter.js";
import { RATE_BUCKETS, type RateBucket } from "../../src/service/rate-limits.js";
import { NoFreeSlotError } from "../../src/store/rate-limit.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const MARGIN = DEFAULT_RATE_MARGIN_MS;

/** A clock that only moves when the limiter sleeps, so every wait is exact and instant. */
function fakeTime(start = 1_000_000) {
  let t = start;
  const sleeps: number[] = [];
  const clock = {
    /** Runs while the limiter sleeps, before the clock moves: lets a test act during a wait. */
    duringSleep: undefined as (() => Promise<void>) | undefined,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      await clock.duringSleep?.();
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    sleeps,
    elapsed: () => t - start,
  };
  return clock;
}

/** Acquires one by one and returns the clock time at which each call was admitted. */
async function admitTimes(
  limiter: ReturnType<typeof createRateLimiter>,
  clock: { now: () => number },
  buckets: RateBucket[],
  count: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    await limiter.acquire(buckets);
    times.push(clock.now());
  }
  return times;
}

describe("rate limiter with real Redis", () => {
  let redis: TestRedis;
  afterEach(() => redis.cleanup());

  it("lets 5 concurrent AML calls through at once and makes the 6th wait for the window (Redis, fake clock)", async () => {
    redis = testRedis();
    const clock = fakeTime(Date.now());
    const limiter = createRateLimiter({ redis: redis.connect(), keyPrefix: redis.prefix, ...clock });
    const admitted: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, () => limiter.acquire(["aml"]).then(() => admitted.push(clock.elapsed()))),
    );
    expect(admitted).toEqual([0, 0, 0, 0, 0, 1_000 + MARGIN]);
    expect(clock.sleeps).toEqual([1_000 + MARGIN]);
  });

  it("shares one budget between two limiter instances on the same Redis and prefix", async () => {
    redis = testRedis();
    // Instances agree on the time: one fake clock for all three, as Redis TIME would be.
    const clock = fakeTime(Date.now());
    const limiterOn = (keyPrefix: string) =>
      createRateLimiter({ redis: redis.connect(), keyPrefix, ...clock });
    const a = limiterOn(redis.prefix);
    const b = limiterOn(redis.prefix);
    const other = limiterOn(`${redis.prefix}other:`);
    await Promise.all(Array.from({ length: 5 }, () => a.acquire(["aml"])));
    // Another prefix is another budget...
    await other.acquire(["aml"]);
    expect(clock.sleeps).toEqual([]);
    // ...but instance b, on the same prefix, finds the budget spent by instance a.
    await b.acquire(["aml"]);
    expect(clock.sleeps).toEqual([1_000 + MARGIN]);
  });

  it("keeps the whole log in Redis, one sorted set per window", async () => {
    redis = testRedis();
    const raw = redis.connect();
    const limiter = createRateLimiter({ redis: raw, keyPrefix: redis.prefix });
    await limiter.acquire(["aml", "aml_v1"]);
    await limiter.acquire(["aml"]);
    expect(await raw.zcard(`${redis.prefix}aml:1000`)).toBe(2);
    expect(await raw.zcard(`${redis.prefix}aml:60000`)).toBe(2);
    expect(await raw.zcard(`${redis.prefix}aml_v1:1000`)).toBe(1);
    expect(await raw.pttl(`${redis.prefix}aml:60000`)).toBeGreaterThan(59_000);
  });

  it("takes no point from a window while another window refuses (Redis, fake clock)", async () => {
    redis = testRedis();
    const clock = fakeTime(Date.now());
    const limiter = createRateLimiter({ redis: redis.connect(), keyPrefix: redis.prefix, ...clock });
    await leakCheck(limiter, clock);
  });
});

/**
 * aml_v1 allows 2/s and every v1 call also spends the shared aml budget (5/s). A v1 call that
 * waits for aml_v1 must not spend aml meanwhile: 3 plain aml calls still fit in the first second.
 */
async function leakCheck(
  limiter: ReturnType<typeof createRateLimiter>,
  clock: ReturnType<typeof fakeTime>,
): Promise<void> {
  const v1 = await admitTimes(limiter, clock, ["aml_v1", "aml"], 2);
  expect(v1.map((t) => t - v1[0]!)).toEqual([0, 0]);
  const t0 = clock.now();
  // Refused by aml_v1 only; with a leaking union it would have taken an aml point as well.
  const plain: number[] = [];
  clock.duringSleep = async () => {
    clock.duringSleep = undefined;
    // While the v1 call sleeps, plain aml calls must still find 3 free points at once (a
    // limiter that charged aml for the refused v1 attempt would make the third one wait)...
    for (let i = 0; i < 3; i += 1) {
      await limiter.acquire(["aml"]);
      plain.push(clock.now() - t0);
    }
  };
  await limiter.acquire(["aml_v1", "aml"]);
  expect(plain).toEqual([0, 0, 0]);
  // ...and the v1 call itself waited exactly for its own window, once.
  expect(clock.sleeps).toEqual([1_000 + MARGIN]);
}

describe("rate limiter in memory", () => {
  it("lets 5 AML calls through at once and makes the 6th wait for the window plus margin", async () => {
    const clock = fakeTime();
    const limiter = createRateLimiter({ keyPrefix: "rl:", ...clock });
    const times = await admitTimes(limiter, clock, ["aml"], 6);
    expect(times.map((t) => t - times[0]!)).toEqual([0, 0, 0, 0, 0, 1_000 + MARGIN]);
  });

  it("waits on the real clock when none is injected", async () => {
    const sleeps: number[] = [];
    const limiter = createRateLimiter({
      keyPrefix: "rl:",
      windows: smallWindows(),
      sleep: (ms) => {
        sleeps.push(ms);
        return sleep(ms);
      },
    });
    await limiter.acquire(["aml"]);
    await limiter.acquire(["aml"]);
    expect(sleeps).toEqual([]);
    // The third waits for the window to slide on Date.now: never longer than the window and margin.
    await limiter.acquire(["aml"]);
    expect(sleeps.length).toBeGreaterThan(0);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(100 + MARGIN);
  });

  it("slides: calls spread over a second free their slots one by one, not all at a boundary", async () => {
    const clock = fakeTime();
    const limiter = createRateLimiter({ keyPrefix: "rl:", ...clock });
    await limiter.acquire(["aml"]);
    clock.advance(900);
    const times = await admitTimes(limiter, clock, ["aml"], 6);
    // A fixed window starting at the first call would admit 5 more at 1000 (9 in 100 ms).
    expect(times.map((t) => t - (clock.now() - clock.elapsed()))).toEqual([
      900,
      900,
      900,
      900,
      1_000 + MARGIN,
      1_900 + MARGIN,
    ]);
  });

  it("honours the minute window of AML: 150 per minute even at 5 per second", async () => {
    const clock = fakeTime();
    const limiter = createRateLimiter({ keyPrefix: "rl:", ...clock });
    const times = await admitTimes(limiter, clock, ["aml"], 151);
    const start = times[0]!;
    expect(times[149]! - start).toBeLessThan(60_000);
    expect(times[150]! - start).toBe(60_000 + MARGIN);
    // Never more than 5 in any sliding second.
    for (let i = 5; i < times.length; i += 1) expect(times[i]! - times[i - 5]!).toBeGreaterThan(1_000);
  });

  it("takes no point from a window while another window refuses", async () => {
    const clock = fakeTime();
    await leakCheck(createRateLimiter({ keyPrefix: "rl:", ...clock }), clock);
  });

  it("keeps separate budgets for separate buckets and prefixes", async () => {
    const clock = fakeTime();
    const limiter = createRateLimiter({ keyPrefix: "rl:", ...clock });
    await admitTimes(limiter, clock, ["order5m"], RATE_BUCKETS.order5m[0].points);
    expect(await admitTimes(limiter, clock, ["orchestrator"], 1)).toEqual([clock.now()]);
    expect(clock.elapsed()).toBe(0);
    await limiter.acquire(["order5m"]);
    expect(clock.elapsed()).toBe(1_000 + MARGIN);
  });

  it("admits waiting callers in arrival order", async () => {
    const clock = fakeTime();
    const limiter = createRateLimiter({ keyPrefix: "rl:", ...clock, windows: smallWindows() });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => limiter.acquire(["aml"]).then(() => order.push(i))),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("returns at once for no bucket and refuses an unknown one", async () => {
    const limiter = createRateLimiter({ keyPrefix: "rl:" });
    await limiter.acquire([]);
    await expect(limiter.acquire(["nope" as RateBucket])).rejects.toThrow(/unknown rate-limit bucket: nope/);
  });
});

function smallWindows() {
  return { ...RATE_BUCKETS, aml: [{ points: 2, durationMs: 100 }] };
}

/** Callers that will not wait, and entries moved to when the service counted the call. */
async function refusesAndRestamps(
  make: (clock: ReturnType<typeof fakeTime>) => ReturnType<typeof createRateLimiter>,
): Promise<void> {
  const clock = fakeTime();
  const limiter = make(clock);
  const slots = await Promise.all(Array.from({ length: 5 }, () => limiter.acquire(["aml"])));
  // No slot now: refused at once, without sleeping and without taking one.
  const refused = limiter.acquire(["aml"], { maxWaitMs: 0 });
  await expect(refused).rejects.toBeInstanceOf(NoFreeSlotError);
  await expect(refused).rejects.toMatchObject({ waitMs: 1_000 + MARGIN });
  expect(clock.sleeps).toEqual([]);

  // The 5 calls are counted by the service 800 ms after admission (a busy event loop, a slow
  // way there): their slots free a window after that, not after admission.
  clock.advance(800);
  for (const slot of slots) await slot?.counted();
  // A wait within the caller's bound is taken: 1050 ms from now (250 ms if stamped at admission).
  await limiter.acquire(["aml"], { maxWaitMs: 2_000 });
  expect(clock.sleeps).toEqual([1_000 + MARGIN]);
}

describe("rate limiter: callers that will not wait, and calls counted late", () => {
  let redis: TestRedis | undefined;
  afterEach(() => redis?.cleanup());

  it("in memory", async () => {
    await refusesAndRestamps((clock) => createRateLimiter({ keyPrefix: "rl:", ...clock }));
  });

  it("on Redis", async () => {
    const r = testRedis();
    redis = r;
    await refusesAndRestamps((clock) =>
      createRateLimiter({ redis: r.connect(), keyPrefix: r.prefix, ...clock }),
    );
  });
});

describe("a limit per client (buckets not known in advance, one window each)", () => {
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    redis = undefined;
  });

  async function perAddress(
    limiter: ReturnType<typeof createRateLimiter<string>>,
    clock: ReturnType<typeof fakeTime>,
  ) {
    const take = (address: string) =>
      limiter.acquire([address], { maxWaitMs: 0 }).then(
        () => "ok",
        (error: unknown) => (error instanceof NoFreeSlotError ? "refused" : "error"),
      );
    const flood: string[] = [];
    for (let i = 0; i < 1_000; i += 1) flood.push(await take("198.51.100.7"));
    expect(flood.filter((r) => r === "ok")).toHaveLength(30);
    expect(flood.slice(30).every((r) => r === "refused")).toBe(true);
    expect(await take("203.0.113.9")).toBe("ok");
    clock.advance(59_999);
    expect(await take("198.51.100.7")).toBe("refused");
    clock.advance(1);
    expect(await take("198.51.100.7")).toBe("ok");
  }

  const windows = () => [{ points: 30, durationMs: 60_000 }];

  it("in memory: 1000 from one address take 30, another address is still let in, the window moves on", async () => {
    const clock = fakeTime();
    await perAddress(
      createRateLimiter<string>({ keyPrefix: "verify:", windows, marginMs: 0, ...clock }),
      clock,
    );
  });

  it("on Redis: the same, shared by every instance", async () => {
    redis = testRedis();
    const clock = fakeTime(Date.now());
    const limiter = createRateLimiter<string>({
      redis: redis.connect(),
      keyPrefix: `${redis.prefix}verify:`,
      windows,
      marginMs: 0,
      ...clock,
    });
    await perAddress(limiter, clock);
  });
});

describe("a call counted within the margin of its admission", () => {
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    redis = undefined;
  });

  it("on Redis: is not restamped (its windows already cover it), one counted later is", async () => {
    const r = testRedis();
    redis = r;
    const connection = r.connect();
    let scripts = 0;
    const counting = new Proxy(connection, {
      get(target, name, receiver) {
        if (name !== "evalsha") return Reflect.get(target, name, receiver);
        return (...args: Parameters<typeof connection.evalsha>) => {
          scripts += 1;
          return target.evalsha(...args);
        };
      },
    });
    const clock = fakeTime(Date.now());
    const windows = () => [{ points: 1, durationMs: 1_000 }];
    const limiter = createRateLimiter<string>({ redis: counting, keyPrefix: r.prefix, windows, ...clock });

    const quick = await limiter.acquire(["open"]);
    clock.advance(MARGIN);
    await quick?.counted();
    expect(scripts).toBe(1);
    // The next slot: a window and the margin after the admission, as if it had been restamped.
    await limiter.acquire(["open"]);
    expect(clock.sleeps).toEqual([1_000]);

    const late = await limiter.acquire(["open"], { maxWaitMs: 5_000 });
    const before = scripts;
    clock.advance(MARGIN + 1);
    await late?.counted();
    expect(scripts).toBe(before + 1);
  });
});

describe("a refusal already known answers the next caller that will not wait", () => {
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    redis = undefined;
  });

  it("on Redis: no second round trip before the slot can free, asked again once it can", async () => {
    const r = testRedis();
    redis = r;
    const connection = r.connect();
    let scripts = 0;
    // Counts the limiter's round trips (one script each); everything else is the connection's own.
    const counting = new Proxy(connection, {
      get(target, name, receiver) {
        if (name !== "evalsha") return Reflect.get(target, name, receiver);
        return (...args: Parameters<typeof connection.evalsha>) => {
          scripts += 1;
          return target.evalsha(...args);
        };
      },
    });
    const clock = fakeTime(Date.now());
    const windows = () => [{ points: 2, durationMs: 1_000 }];
    const options = { keyPrefix: r.prefix, windows, marginMs: 0, ...clock };
    const limiter = createRateLimiter<string>({ redis: counting, ...options });
    // Another instance on the same Redis: it can only fill the window further, never free it sooner.
    const other = createRateLimiter<string>({ redis: r.connect(), ...options });
    const refusal = (wait?: number) =>
      limiter.acquire(["open"], { maxWaitMs: 0 }).then(
        () => "ok",
        (error: unknown) => (error instanceof NoFreeSlotError ? `refused ${wait ?? error.waitMs}` : "error"),
      );

    await limiter.acquire(["open"]);
    await other.acquire(["open"]);
    expect(scripts).toBe(1);
    expect(await refusal()).toBe("refused 1000");
    expect(scripts).toBe(2);
    clock.advance(400);
    expect(await refusal()).toBe("refused 600");
    expect(scripts).toBe(2);
    clock.advance(599);
    expect(await refusal()).toBe("refused 1");
    expect(scripts).toBe(2);
    // A caller that will wait that long still asks, and waits for the slot.
    await limiter.acquire(["open"], { maxWaitMs: 5_000 });
    expect(clock.sleeps).toEqual([1]);
    expect(scripts).toBe(4);
    // Past the known moment the window is asked again: one of the two slots is free.
    expect(await refusal()).toBe("ok");
    expect(scripts).toBe(5);
  });
});
