import type { Cluster, Redis } from "ioredis";
import { isCluster, type RedisClient } from "./redis-connect.js";

/**
 * Redis replicates asynchronously: a job the master has stored, and a sender has been told is
 * stored, can still vanish when that master dies before its replica copied it and the replica is
 * promoted. With Sentinel or Cluster, every batch of adds is therefore followed by WAIT on the
 * connection (the master) that stored it, and the adds are answered only once a replica has them
 * too; otherwise (the master went away, or its replica did not keep up within the timeout) they
 * fail, and a webhook is answered 503 so the service sends it again. A master that has no
 * replica connected at all (its replica died, or was just promoted away from it) is not waited
 * for: nothing could take over from it with less data; `short` reports it.
 */
export interface ReplicaAck {
  /** Replicas that must hold the write (1: the one that a failover would promote). */
  replicas: number;
  timeoutMs: number;
  /** Called when the master has no replica connected, so a write was not waited for. */
  short?: () => void;
}

/** Called before a write: answers the check to run after it (throws when the write is not safe). */
export type AfterStore = () => () => Promise<void>;

/** How long the number of a master's connected replicas (ROLE) is trusted. */
const ROLE_TTL_MS = 1_000;

/** WAIT after a write to the keys of `hashTag` (a cluster routes it to that slot's master). */
export function replicaWait(redis: RedisClient, hashTag: string, ack: ReplicaAck): AfterStore {
  let role: { node: Redis; replicas: Promise<number>; at: number } | undefined;
  const replicasOf = (node: Redis): Promise<number> => {
    if (role?.node !== node || Date.now() - role.at > ROLE_TTL_MS) {
      const replicas = node.call("ROLE").then((reply) => connectedReplicas(reply));
      role = { node, replicas, at: Date.now() };
    }
    return role.replicas;
  };
  // A connection that reconnected (a failover) between the write and WAIT would WAIT on another
  // server, which says nothing about the write: each lost connection moves its number on.
  const epochs = new WeakMap<Redis, number>();
  const epochOf = (node: Redis): number => {
    if (!epochs.has(node)) {
      epochs.set(node, 0);
      node.on("close", () => epochs.set(node, (epochs.get(node) ?? 0) + 1));
    }
    return epochs.get(node) ?? 0;
  };
  const nodeOf = () => (isCluster(redis) ? masterOf(redis, keySlot(hashTag)) : redis);
  return () => {
    const before = nodeOf();
    const epoch = before ? epochOf(before) : -1;
    return async () => {
      const node = nodeOf();
      // No slot map yet before the write (a client still connecting): its first master is the one.
      const same = before === undefined ? node !== undefined && epochOf(node) === 0 : node === before;
      if (!node || !same || (before !== undefined && epochOf(node) !== epoch)) {
        throw new ReplicaAckError("the master changed while the job was stored: not confirmed");
      }
      const connected = await replicasOf(node);
      if (connected === 0) {
        ack.short?.();
        return;
      }
      const wanted = Math.min(ack.replicas, connected);
      const acknowledged = Number(await node.call("WAIT", wanted, ack.timeoutMs));
      if (acknowledged < wanted) {
        role = undefined;
        throw new ReplicaAckError(`stored, but no replica confirmed it within ${ack.timeoutMs} ms`);
      }
    };
  };
}

class ReplicaAckError extends Error {
  override readonly name = "ReplicaAckError";
  readonly code = "replica_ack";
}

/** ROLE on a master: ["master", offset, [[ip, port, offset], …]]; anything else has none. */
function connectedReplicas(reply: unknown): number {
  if (!Array.isArray(reply) || reply[0] !== "master" || !Array.isArray(reply[2])) return 0;
  return reply[2].length;
}

/** The connection to the master serving `slot`: the same one the cluster client sent the writes on. */
function masterOf(cluster: Cluster, slot: number) {
  const owner = cluster.slots[slot]?.[0];
  return cluster.nodes("master").find((node) => `${node.options.host}:${node.options.port}` === owner);
}

/** Redis Cluster's slot of a key: CRC16 (XMODEM) of the key, or of its `{hash tag}`, modulo 16384. */
function keySlot(key: string): number {
  const open = key.indexOf("{");
  const close = open < 0 ? -1 : key.indexOf("}", open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}
