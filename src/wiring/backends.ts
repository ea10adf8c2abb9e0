import { randomBytes } from "node:crypto";
import type { Config } from "../config/load-config.js";
import { createBullQueues, createMemoryQueues } from "../jobs/index.js";
import type { JobQueue } from "../jobs/queue.js";
import type { Logger } from "../log.js";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../sandbox/accounts.js";
import type { Sandbox } from "../sandbox/server.js";
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from "../service/client.js";
import { createRateLimiter } from "../service/limiter.js";
import type { ServiceRateLimiter } from "../service/rate-limits.js";
import { createMemoryStore, createRedisStore, type Store } from "../store/index.js";
import { createRedisConnector, quitRedis, type RedisConnector } from "../store/redis-connect.js";
import { type AfterStore, type ReplicaAck, replicaWait } from "../store/replica-ack.js";
import type { Shutdown } from "./shutdown.js";

/**
 * What the bot keeps its state in and talks to: the store, the job queues, the service client
 * (with its rate limiter) and, in the demo, the built-in sandbox. Redis when REDIS_URL,
 * REDIS_SENTINELS or REDIS_CLUSTER_NODES is set (shared by every instance; every connection is
 * built by one `RedisConnector`), in-process otherwise. Each part is closed in the last phase of stop.
 */
export const DEMO_PUBLIC_URL = "https://opsbot.sandbox";
const HOST_TOKEN_KEY = "host-callback-token";

export interface Backends {
  store: Store;
  queues: JobQueue;
  service: ServiceClient;
  sandbox?: Sandbox;
  /** HOST_CALLBACK_TOKEN, or the one generated once and kept in the store. */
  hostCallbackToken: string;
  /**
   * Sentinel and Cluster: the notifier's own store (its own connection, so the replicas' WAIT after
   * a post never holds up a person's command) and the check that a replica holds its writes.
   */
  durableStore?: { store: Store; confirm: AfterStore };
  /** Each agent's calls a minute (OPS_AGENT_TOKENS), counted by every instance together. */
  agentLimiter: ServiceRateLimiter<string>;
  /** Each client address's requests a minute to `/verify`, counted by every instance together. */
  verifyLimiter: ServiceRateLimiter<string>;
}

/** CONTRACT.md "Agents": more than 60 calls a minute per token are refused. */
const AGENT_WINDOW = [{ points: 60, durationMs: 60_000 }] as const;
/** CONTRACT.md "Verification page": more than 30 requests a minute from one address get 429. */
const VERIFY_WINDOW = [{ points: 30, durationMs: 60_000 }] as const;

export interface BackendOptions {
  config: Config;
  logger: Logger;
  /** Key prefix in Redis, e.g. `opsbot:`. */
  prefix: string;
  /** The bot's own port: the demo sandbox delivers its webhooks and callbacks there. */
  botPort: number;
  shutdown: Shutdown;
  onServiceReply?: ServiceClientOptions["onReply"];
}

export async function startBackends(options: BackendOptions): Promise<Backends> {
  const { config, logger, prefix, shutdown } = options;
  const redis = config.redis
    ? createRedisConnector(config.redis, prefix, (error) =>
        logger.warn({ err: error }, "Redis connection error"),
      )
    : undefined;
  const replicaAck = redis && redis.target.kind !== "server" ? replicaAckFor(logger) : undefined;
  const store = startStore(redis, shutdown);
  const durableStore = redis && replicaAck && startDurableStore(redis, shutdown, replicaAck);

  const sandbox =
    config.service.mode === "sandbox" ? await startDemoSandbox(config, options.botPort) : undefined;
  if (sandbox) shutdown.add("connections", "sandbox", () => sandbox.close());

  // The limiter has a connection of its own, so a backlog of jobs never delays a call's admission.
  const limiterRedis = redis?.connect();
  if (limiterRedis) shutdown.add("connections", "rate limiter Redis", () => quitRedis(limiterRedis));
  const service = createServiceClient({
    ...(config.service.mode === "remote"
      ? { baseUrl: config.service.baseUrl, apiKey: config.service.apiKey, realIp: config.service.realIp }
      : { baseUrl: sandbox?.url ?? "", apiKey: DEFAULT_API_KEY, realIp: DEFAULT_REAL_IP }),
    limiter: createRateLimiter({ redis: limiterRedis, keyPrefix: redis?.keys.limiter ?? `${prefix}rl:` }),
    coalesceLookups: true,
    ...(options.onServiceReply && { onReply: options.onServiceReply }),
  });

  const agentLimiter = createRateLimiter<string>({
    redis: limiterRedis,
    keyPrefix: `${redis?.keys.limiter ?? `${prefix}rl:`}agent:`,
    windows: Object.fromEntries(config.agents.tokens.map((agent) => [agent.name, AGENT_WINDOW])),
    marginMs: 0,
  });
  const verifyLimiter = createRateLimiter<string>({
    redis: limiterRedis,
    keyPrefix: `${redis?.keys.limiter ?? `${prefix}rl:`}verify:`,
    windows: () => VERIFY_WINDOW,
    marginMs: 0,
  });

  const queues: JobQueue = redis
    ? createBullQueues({
        connection: (connectOptions) => redis.connect(connectOptions),
        prefix: redis.keys.jobs,
        onError: (error) => logger.warn({ err: error }, "job queue connection error"),
        ...(replicaAck && { replicaAck }),
      })
    : createMemoryQueues();
  shutdown.add("connections", "job queues", () => queues.close());

  const hostCallbackToken = config.hostCallbackToken ?? (await generatedHostToken(store));
  return {
    store,
    queues,
    service,
    ...(sandbox && { sandbox }),
    hostCallbackToken,
    ...(durableStore && { durableStore }),
    agentLimiter,
    verifyLimiter,
  };
}

/** A replica that has not copied a stored job within this long fails the add (see replica-ack.ts). */
const REPLICA_ACK_TIMEOUT_MS = 500;
const REPLICA_WARN_EVERY_MS = 60_000;

function replicaAckFor(logger: Logger): ReplicaAck {
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    replicas: 1,
    timeoutMs: REPLICA_ACK_TIMEOUT_MS,
    short: () => {
      if (Date.now() - warnedAt < REPLICA_WARN_EVERY_MS) return;
      warnedAt = Date.now();
      logger.warn(
        "the Redis master has no replica connected: stored jobs are not copied anywhere until one is back",
      );
    },
  };
}

function startStore(redis: RedisConnector | undefined, shutdown: Shutdown): Store {
  if (!redis) {
    const store = createMemoryStore();
    shutdown.add("connections", "store", () => store.close());
    return store;
  }
  const connection = redis.connect({ autoPipelining: true });
  const store = createRedisStore({ redis: connection, prefix: redis.keys.store });
  shutdown.add("connections", "store", () => quitRedis(connection));
  return store;
}

/** WAIT blocks the connection it runs on: the writes it confirms get a connection of their own. */
function startDurableStore(redis: RedisConnector, shutdown: Shutdown, replicaAck: ReplicaAck) {
  const connection = redis.connect({ autoPipelining: true });
  shutdown.add("connections", "notifier store", () => quitRedis(connection));
  return {
    store: createRedisStore({ redis: connection, prefix: redis.keys.store }),
    confirm: replicaWait(connection, redis.keys.store, replicaAck),
  };
}

/** The built-in sandbox's log of calls, bounded: nobody reads it in the demo, and a demo may run for days. */
const DEMO_CALLS_KEPT = 1_000;

/** Loaded only in demo mode: a bot that talks to the real service never holds the simulator's code. */
async function startDemoSandbox(config: Config, botPort: number): Promise<Sandbox> {
  const { createSandbox } = await import("../sandbox/server.js");
  const publicUrl = config.publicUrl ?? DEMO_PUBLIC_URL;
  return createSandbox({
    apiKey: DEFAULT_API_KEY,
    keepCalls: DEMO_CALLS_KEPT,
    outbound: { originMap: { [new URL(publicUrl).origin]: `http://127.0.0.1:${botPort}` } },
  });
}

/** HOST_CALLBACK_TOKEN unset: one random token, generated once and shared through the store. */
async function generatedHostToken(store: Store): Promise<string> {
  await store.setIfNotExists(HOST_TOKEN_KEY, randomBytes(24).toString("base64url"));
  const token = await store.get(HOST_TOKEN_KEY);
  if (!token) throw new Error("could not read the Host Mode callback token from the store");
  return token;
}
