import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, secretValues } from "../../src/config/load-config.js";
import { redisKeyLayout } from "../../src/store/redis-connect.js";

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("accepted");
};

describe("Redis beyond one server: configuration", () => {
  it("reads a Sentinel group with its master's name and a password", () => {
    const config = loadConfig({
      REDIS_SENTINELS: "10.0.0.1:26379, sentinel-b.internal:26380,[::1]:26381",
      REDIS_SENTINEL_MASTER: "opsbot-master",
      REDIS_PASSWORD: "s3cret-pw",
    });
    expect(config.redis).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "10.0.0.1", port: 26379 },
        { host: "sentinel-b.internal", port: 26380 },
        { host: "::1", port: 26381 },
      ],
      masterName: "opsbot-master",
      password: "s3cret-pw",
    });
    expect(config.redisUrl).toBeUndefined();
    expect(secretValues(config)).toContain("s3cret-pw");
  });

  it("reads cluster seed nodes, and REDIS_URL as one server", () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: "10.0.0.1:6379,10.0.0.2:6379" }).redis).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 6379 },
        { host: "10.0.0.2", port: 6379 },
      ],
    });
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" }).redis).toEqual({
      kind: "server",
      url: "redis://127.0.0.1:6379",
    });
    expect(loadConfig({}).redis).toBeUndefined();
  });

  it("refuses a bad value or combination in one line naming the variable, without echoing secrets", () => {
    expect(refusal({ REDIS_SENTINELS: "10.0.0.1", REDIS_SENTINEL_MASTER: "m" })).toBe(
      "REDIS_SENTINELS: must be a comma list of host:port sentinels, such as 10.0.0.1:26379,10.0.0.2:26379",
    );
    expect(refusal({ REDIS_CLUSTER_NODES: "10.0.0.1:99999" })).toBe(
      "REDIS_CLUSTER_NODES: must be a comma list of host:port cluster nodes, such as 10.0.0.1:6379,10.0.0.2:6379",
    );
    expect(refusal({ REDIS_SENTINELS: "10.0.0.1:26379" })).toBe(
      "REDIS_SENTINEL_MASTER: required when REDIS_SENTINELS is set",
    );
    expect(refusal({ REDIS_SENTINEL_MASTER: "m" })).toBe(
      "REDIS_SENTINEL_MASTER: only used with REDIS_SENTINELS: set it too, or unset this one",
    );
    expect(refusal({ REDIS_URL: "redis://h:6379", REDIS_CLUSTER_NODES: "h:6379" })).toBe(
      "REDIS_CLUSTER_NODES: set only one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES (REDIS_URL is set too)",
    );
    const message = refusal({ REDIS_PASSWORD: "hunter2-pw" });
    expect(message).toBe(
      "REDIS_PASSWORD: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (REDIS_URL carries its own)",
    );
    expect(refusal({ REDIS_CLUSTER_NODES: "h:1", REDIS_PASSWORD: "with space" })).not.toContain("with space");
  });
});

describe("Redis key names", () => {
  it("keep a single server's and Sentinel's names as they always were", () => {
    for (const kind of ["server", "sentinel"] as const) {
      expect(redisKeyLayout(kind, "opsbot:")).toEqual({
        store: "opsbot:",
        limiter: "opsbot:rl:",
        jobs: "opsbot:jobs",
      });
    }
  });

  it("put every key of the bot under one hash tag on a cluster", () => {
    expect(redisKeyLayout("cluster", "opsbot:")).toEqual({
      store: "{opsbot}:",
      limiter: "{opsbot}:rl:",
      jobs: "{opsbot}:jobs",
    });
  });
});
