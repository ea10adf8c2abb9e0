import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";

/**
 * The one place that turns the configuration into Redis connections: a single server
 * (REDIS_URL), a Sentinel-managed master (ioredis `sentinels` + `name`) or a Redis Cluster
 * (ioredis `Cluster`). The store, the rate limiter and BullMQ's queues and workers all connect
 * through here, so each follows a failover the same way.
 */
export type RedisClient = Redis | Cluster;

/** Where Redis is: the shape of `Config["redis"]` (the store layer does not import the config). */
export type RedisTarget =
  | { kind: "server"; url: string }
  | { kind: "sentinel"; sentinels: RedisNode[]; masterName: string; password?: string }
  | { kind: "cluster"; nodes: RedisNode[]; password?: string };

export interface RedisNode {
  host: string;
  port: number;
}

export interface ConnectOptions {
  /** BullMQ workers block on Redis: a command never gives up while Redis is away (`null`). */
  maxRetriesPerRequest?: number | null;
  /** Commands of one turn of the event loop go as one pipeline (per node on a cluster). */
  autoPipelining?: boolean;
}

export interface RedisConnector {
  readonly target: RedisTarget;
  /** A new connection; the caller closes it (`quitRedis`). Errors go to `onError`. */
  connect(options?: ConnectOptions): RedisClient;
  /** The key names of each user of Redis under `prefix` (see `redisKeyLayout`). */
  readonly keys: RedisKeyLayout;
}

export interface RedisKeyLayout {
  /** The store's prefix, e.g. `opsbot:`. */
  store: string;
  /** The rate limiter's prefix: one script touches several windows at once. */
  limiter: string;
  /** BullMQ's prefix: each queue's keys are touched together by its scripts. */
  jobs: string;
}

/**
 * A single server and Sentinel keep the key names the bot has always used (`opsbot:`,
 * `opsbot:rl:`, `opsbot:jobs`), so an upgrade, or two versions side by side in a rolling one,
 * share the same queues and limits.
 *
 * On a cluster every key of the bot carries one hash tag (`{opsbot}:…`, `{opsbot}:rl:…`,
 * `{opsbot}:jobs`), so all of them live in one slot, on one master and its replica. That is
 * what Lua scripts and MULTI need (their keys in one slot), and it keeps what Sentinel gives:
 * a master replicates its writes in order, so after a failover the promoted replica holds a
 * consistent past of the bot (a stored job together with everything written before it), never
 * a later write without an earlier one that happened to live on another master. The bot's data
 * is small; the cluster's other slots stay free for everything else.
 */
export function redisKeyLayout(kind: RedisTarget["kind"], prefix: string): RedisKeyLayout {
  if (kind !== "cluster") return { store: prefix, limiter: `${prefix}rl:`, jobs: `${prefix}jobs` };
  const tag = `{${prefix.replace(/:+$/, "")}}:`;
  return { store: tag, limiter: `${tag}rl:`, jobs: `${tag}jobs` };
}

/** After a promotion the old master answers writes with READONLY: reconnect, find the new one, resend. */
const RECONNECT_AND_RESEND = 2;
function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith("READONLY") ? RECONNECT_AND_RESEND : false;
}

/** Cluster: how long a failover (a replica taking over a slot) may take before a command fails. */
const CLUSTER_RETRY_DELAY_MS = 200;

export function createRedisConnector(
  target: RedisTarget,
  prefix: string,
  onError: (error: Error) => void = () => {},
): RedisConnector {
  return {
    target,
    keys: redisKeyLayout(target.kind, prefix),
    connect(options = {}) {
      const client = open(target, options);
      // Without a listener ioredis prints every reconnect failure; commands still reject on their own.
      client.on("error", onError);
      return client;
    },
  };
}

function open(target: RedisTarget, options: ConnectOptions): RedisClient {
  const common: RedisOptions = {
    reconnectOnError: reconnectOnReadOnly,
    ...(options.maxRetriesPerRequest !== undefined && { maxRetriesPerRequest: options.maxRetriesPerRequest }),
  };
  const enableAutoPipelining = options.autoPipelining === true;
  switch (target.kind) {
    case "server":
      return new Redis(target.url, { ...common, enableAutoPipelining });
    case "sentinel":
      return new Redis({
        ...common,
        enableAutoPipelining,
        sentinels: target.sentinels,
        name: target.masterName,
        // Listen to the sentinels' +switch-master instead of waiting for the old master to fail.
        failoverDetector: true,
        ...(target.password !== undefined && { password: target.password }),
      });
    case "cluster":
      return new Cluster(target.nodes, clusterOptions(target.password, common, enableAutoPipelining));
  }
}

function clusterOptions(
  password: string | undefined,
  common: RedisOptions,
  enableAutoPipelining: boolean,
): ClusterOptions {
  return {
    enableAutoPipelining,
    scaleReads: "master",
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    // A master that went away: ask the remaining nodes for the new slot owners.
    clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
    redisOptions: { ...common, ...(password !== undefined && { password }) },
  };
}

export const isCluster = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;

/** QUIT lets pending replies arrive; a connection that is not up would wait for a reconnect forever. */
export async function quitRedis(redis: RedisClient): Promise<void> {
  if (redis.status === "ready" || (isCluster(redis) && redis.status === "connect")) {
    await redis.quit().catch(() => redis.disconnect());
  } else redis.disconnect();
}
