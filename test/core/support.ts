import { afterEach, beforeEach, describe } from "vitest";
import type { Clock } from "../../src/clock.js";
import type { CoreDeps } from "../../src/core/deps.js";
import type { Actor, ConversationRef } from "../../src/core/invocation.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import type { JobScheduler, Notifier, TrackedJob } from "../../src/core/ports.js";
import type { Reply } from "../../src/core/reply.js";
import type { ServiceClient } from "../../src/service/client.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import type { Store } from "../../src/store/store.js";
import { PLATFORM_FACTS } from "../../src/wiring/platforms.js";
import { testRedis } from "../support/redis.js";
import { baseSettings, type SettingsOverrides, withSettings } from "../support/settings.js";

/** A clock the test moves. Starts at noon UTC so "later today" and "tomorrow" are both easy. */
export interface FakeClock {
  now: Clock;
  advance(ms: number): void;
  set(iso: string): void;
}

export function fakeClock(start = "2025-03-01T12:00:00.000Z"): FakeClock {
  let t = Date.parse(start);
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}

export const viewer: Actor = { platform: "slack", userId: "U0VIEW" };
export const operator: Actor = { platform: "slack", userId: "U0OPER" };
export const admin: Actor = { platform: "telegram", userId: "4242" };
export const channel: ConversationRef = { platform: "slack", id: "C0OPS" };

/** A service client that fails the test loudly if a command touches it. */
const untouchableService = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`this test must not use the service (touched ${String(property)})`);
    },
  },
) as ServiceClient;

export interface StubDeps extends CoreDeps {
  logger: ReturnType<typeof createMemoryLogger>;
  scheduled: TrackedJob[];
  posted: { conversation: ConversationRef; reply: Reply }[];
  clock: FakeClock;
}

/** CoreDeps for commands that never call the service (help, audit, roles, buttons). */
export function stubDeps(
  options: { store?: Store; settings?: SettingsOverrides; clock?: FakeClock } = {},
): StubDeps {
  const clock = options.clock ?? fakeClock();
  const scheduled: TrackedJob[] = [];
  const posted: StubDeps["posted"] = [];
  const jobs: JobScheduler = {
    async schedule(job) {
      scheduled.push(job);
    },
  };
  const notifier: Notifier = {
    async post(conversation, reply) {
      posted.push({ conversation, reply });
    },
  };
  return {
    service: untouchableService,
    store: options.store ?? createMemoryStore({ now: clock.now }),
    jobs,
    notifier,
    now: clock.now,
    logger: createMemoryLogger(),
    settings: withSettings(baseSettings, options.settings),
    platforms: PLATFORM_FACTS,
    scheduled,
    posted,
    clock,
  };
}

export interface StoreCase {
  store: Store;
  /** A second handle on the same data (a second connection for Redis) for races. */
  peer: Store;
  clock: FakeClock;
}

/** Runs the same tests against the memory store and the Redis store (private server, own prefix). */
export function forEachStore(name: string, body: (get: () => StoreCase) => void): void {
  describe(`${name} (memory store)`, () => {
    let current: StoreCase;
    beforeEach(() => {
      const clock = fakeClock();
      const store = createMemoryStore({ now: clock.now });
      current = { store, peer: store, clock };
    });
    body(() => current);
  });
  describe(`${name} (redis store)`, () => {
    let current: StoreCase;
    let redis: ReturnType<typeof testRedis>;
    beforeEach(() => {
      redis = testRedis();
      const clock = fakeClock();
      current = {
        store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
        peer: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
        clock,
      };
    });
    afterEach(() => redis.cleanup());
    body(() => current);
  });
}
