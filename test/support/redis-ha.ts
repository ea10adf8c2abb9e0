import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { sleep } from "../../src/clock.js";
import type { RedisNode, RedisTarget } from "../../src/store/redis-connect.js";
import { freePort, LOOPBACK, stopChild } from "./processes.js";

/**
 * Real high-availability Redis for the tests that need one (started by those test files only, not
 * by the global setup, so the rest of the suite pays nothing): a Redis Cluster of 3 masters with
 * a replica each, or a Sentinel group (a master, a replica, three sentinels). Short timeouts make
 * a failover take seconds; every wait is polled and bounded; `close()` kills every process and
 * removes the temporary directory, whatever state the topology is in.
 */
export interface HaRedis {
  /** What the bot is configured with (as REDIS_CLUSTER_NODES or REDIS_SENTINELS would give it). */
  target: RedisTarget;
  /** The environment that configures the bot for it. */
  env: Record<string, string>;
  /** Kills the current master (SIGKILL; of `slotOf` key's slot on a cluster) and returns at once. */
  killMaster(key?: string): Promise<RedisNode>;
  /** Resolves once a replica has taken over (the topology answers writes again), within `timeoutMs`. */
  failedOver(timeoutMs?: number): Promise<void>;
  /** Starts the killed nodes again and waits until each is a replica again (full redundancy). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

const NODE_TIMEOUT_MS = 1_000;
const READY_TIMEOUT_MS = 20_000;
const MASTER_NAME = "opsbot-master";

interface Started {
  port: number;
  child: ChildProcess;
  args: string[];
}

const dead = (s: Started) => s.child.exitCode !== null || s.child.signalCode !== null;

async function relaunch(children: Started[]): Promise<number[]> {
  const ports: number[] = [];
  for (const s of children.filter(dead)) {
    s.child = launch(s.args);
    ports.push(s.port);
    await until(`node ${s.port} up again`, 10_000, async () => (await ask(s.port)) || undefined);
  }
  return ports;
}

function launch(args: string[]): ChildProcess {
  return spawn("redis-server", args, { stdio: "ignore" });
}

/**
 * A redis-server on `portCount` free ports (the first one it answers on), waited for until it
 * answers. `freePort` only knows a port was free when asked: should something take it before the
 * server binds (a parallel test's connection), the server exits, and it is launched again on others.
 */
async function launchUp(portCount: number, argsFor: (ports: number[]) => string[]): Promise<Started> {
  for (let attempt = 1; ; attempt += 1) {
    const ports: number[] = [];
    for (let i = 0; i < portCount; i += 1) ports.push(await freePort());
    const args = argsFor(ports);
    const started: Started = { port: ports[0]!, child: launch(args), args };
    const state = await until(`node ${started.port} up`, 10_000, async () =>
      dead(started) ? "exited" : (await ask(started.port)) ? "up" : undefined,
    );
    if (state === "up") return started;
    if (attempt === 3) throw new Error(`redis-server exited at start three times: ${args.join(" ")}`);
  }
}

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(
    `${what} not within ${timeoutMs} ms${lastError ? ` (last error: ${String(lastError)})` : ""}`,
  );
}

/** One command on a short-lived connection that never retries (a node may be dead). */
async function ask(port: number, ...args: string[]): Promise<unknown> {
  const redis = new Redis({
    host: LOOPBACK,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 500,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return await redis.call(args[0] ?? "PING", ...args.slice(1));
  } finally {
    redis.disconnect();
  }
}

function closer(children: Started[], dir: string) {
  return async () => {
    await Promise.all(children.map((c) => stopChild(c.child, 2_000)));
    rmSync(dir, { recursive: true, force: true });
  };
}

/** 3 masters and 3 replicas, `redis-cli --cluster create`, waited for until every node says `cluster_state:ok`. */
export async function startRedisCluster(): Promise<HaRedis> {
  const dir = mkdtempSync(join(tmpdir(), "opsbot-cluster-"));
  const children: Started[] = [];
  const close = closer(children, dir);
  try {
    for (let i = 0; i < 6; i += 1) {
      const nodeDir = mkdtempSync(join(dir, `node-${i}-`));
      const node = await launchUp(2, ([port, busPort]) => [
        ...["--port", String(port), "--bind", LOOPBACK, "--dir", nodeDir],
        ...["--cluster-enabled", "yes", "--cluster-port", String(busPort)],
        ...["--cluster-node-timeout", String(NODE_TIMEOUT_MS), "--cluster-replica-validity-factor", "0"],
        ...["--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
      ]);
      children.push(node);
    }
    await runCli([
      "--cluster",
      "create",
      ...children.map((c) => `${LOOPBACK}:${c.port}`),
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    ]);
    await until("cluster_state:ok on every node", READY_TIMEOUT_MS, async () => {
      for (const { port } of children) {
        const info = String(await ask(port, "CLUSTER", "INFO"));
        if (!/cluster_state:ok/.test(info) || !/cluster_known_nodes:6/.test(info)) return undefined;
      }
      return true;
    });
    await until("every master with a synced replica", READY_TIMEOUT_MS, () => mastersReplicated(children));
  } catch (error) {
    await close();
    throw error;
  }
  const nodes = children.map((c) => ({ host: LOOPBACK, port: c.port }));
  const alive = () => children.filter((c) => !dead(c));
  let killed: { port: number; key: string } | undefined;

  return {
    target: { kind: "cluster", nodes },
    env: { REDIS_CLUSTER_NODES: nodes.map((n) => `${n.host}:${n.port}`).join(",") },
    async killMaster(key = "") {
      const port = await masterOfSlot(alive()[0]?.port ?? 0, key);
      const victim = children.find((c) => c.port === port);
      if (!victim) throw new Error(`no cluster node on port ${port}`);
      victim.child.kill("SIGKILL");
      killed = { port, key };
      return { host: LOOPBACK, port };
    },
    async failedOver(timeoutMs = READY_TIMEOUT_MS) {
      await until("a replica to take over the killed master's slots", timeoutMs, async () => {
        for (const { port } of alive()) {
          if (!/cluster_state:ok/.test(String(await ask(port, "CLUSTER", "INFO")))) return undefined;
          if (killed && (await masterOfSlot(port, killed.key)) === killed.port) return undefined;
        }
        return true;
      });
    },
    async restore() {
      await relaunch(children);
      await until("every master with a synced replica again", READY_TIMEOUT_MS, () =>
        mastersReplicated(alive()),
      );
    },
    close,
  };
}

/** True when there are 3 masters and each has a replica connected and in sync (ROLE lists it). */
async function mastersReplicated(nodes: Started[]): Promise<true | undefined> {
  let masters = 0;
  for (const { port } of nodes) {
    const role = (await ask(port, "ROLE")) as [string, number, unknown[]];
    if (role[0] !== "master") continue;
    masters += 1;
    if (role[2].length === 0) return undefined;
  }
  return masters === 3 ? true : undefined;
}

/** The port of the master serving `key`'s slot, as node `askPort` sees it. */
async function masterOfSlot(askPort: number, key: string): Promise<number> {
  const slot = Number(await ask(askPort, "CLUSTER", "KEYSLOT", key));
  const ranges = (await ask(askPort, "CLUSTER", "SLOTS")) as [number, number, [string, number]][];
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

/** A master, its replica and three sentinels (quorum 2), waited for until the sentinels know each other and the replica. */
export async function startRedisSentinel(): Promise<HaRedis> {
  const dir = mkdtempSync(join(tmpdir(), "opsbot-sentinel-"));
  const children: Started[] = [];
  const close = closer(children, dir);
  const common = ["--bind", LOOPBACK, "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"];
  const sentinels: number[] = [];
  try {
    const masterDir = mkdtempSync(join(dir, "master-"));
    const masterNode = await launchUp(1, ([port]) => ["--port", String(port), "--dir", masterDir, ...common]);
    children.push(masterNode);
    const master = masterNode.port;
    const replicaDir = mkdtempSync(join(dir, "replica-"));
    children.push(
      await launchUp(1, ([port]) => [
        ...["--port", String(port), "--dir", replicaDir, ...common],
        ...["--replicaof", LOOPBACK, String(master)],
      ]),
    );
    for (let i = 0; i < 3; i += 1) {
      const conf = join(dir, `sentinel-${i}.conf`);
      const sentinel = await launchUp(1, ([port]) => {
        writeFileSync(
          conf,
          [
            `port ${port}`,
            `bind ${LOOPBACK}`,
            `dir ${dir}`,
            `sentinel monitor ${MASTER_NAME} ${LOOPBACK} ${master} 2`,
            `sentinel down-after-milliseconds ${MASTER_NAME} ${NODE_TIMEOUT_MS}`,
            `sentinel failover-timeout ${MASTER_NAME} 10000`,
            `sentinel parallel-syncs ${MASTER_NAME} 1`,
            "",
          ].join("\n"),
        );
        return [conf, "--sentinel"];
      });
      children.push(sentinel);
      sentinels.push(sentinel.port);
    }
    await until("the sentinels to know each other and the replica", READY_TIMEOUT_MS, async () => {
      for (const port of sentinels) {
        const peers = (await ask(port, "SENTINEL", "SENTINELS", MASTER_NAME)) as unknown[];
        const replicas = (await ask(port, "SENTINEL", "REPLICAS", MASTER_NAME)) as string[][];
        const linked = replicas.some((r) => r.includes("master-link-status") && r.includes("ok"));
        if (peers.length < 2 || !linked) return undefined;
      }
      return true;
    });
  } catch (error) {
    await close();
    throw error;
  }
  const masterPort = async () => {
    for (const port of sentinels) {
      const addr = (await ask(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME).catch(() => null)) as
        | [string, string]
        | null;
      if (addr) return Number(addr[1]);
    }
    throw new Error("no sentinel names a master");
  };
  let killed: number | undefined;
  return {
    target: {
      kind: "sentinel",
      sentinels: sentinels.map((port) => ({ host: LOOPBACK, port })),
      masterName: MASTER_NAME,
    },
    env: {
      REDIS_SENTINELS: sentinels.map((port) => `${LOOPBACK}:${port}`).join(","),
      REDIS_SENTINEL_MASTER: MASTER_NAME,
    },
    async killMaster() {
      const port = await masterPort();
      const victim = children.find((c) => c.port === port);
      if (!victim) throw new Error(`no redis-server on port ${port}`);
      victim.child.kill("SIGKILL");
      killed = port;
      return { host: LOOPBACK, port };
    },
    async failedOver(timeoutMs = READY_TIMEOUT_MS) {
      await until("the sentinels to switch the master", timeoutMs, async () => {
        const port = await masterPort();
        if (port === killed) return undefined;
        const role = (await ask(port, "ROLE")) as [string];
        return role[0] === "master" ? true : undefined;
      });
    },
    async restore() {
      const ports = await relaunch(children);
      await until("the old master to be a linked replica of the new one", READY_TIMEOUT_MS, async () => {
        for (const port of ports) {
          const info = String(await ask(port, "INFO", "replication"));
          if (!/role:slave/.test(info) || !/master_link_status:up/.test(info)) return undefined;
        }
        return true;
      });
    },
    close,
  };
}

function runCli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("redis-cli", args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += String(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), READY_TIMEOUT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(new Error(`redis-cli ${args.slice(0, 2).join(" ")} failed (${code}): ${output.slice(-500)}`));
    });
  });
}
