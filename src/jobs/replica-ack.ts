import type { Cluster, Redis } from "ioredis";
import { isCluster, type RedisClient } from "../store/redis-connect.js";

/**
 * Redis replicates asynchronously: a job the master has stored, and a sender has been told is
 * stored, can still vanish when that master dies before its replica copied it and the replica is
 * promoted. With Sentinel or Cluster, every batch of adds is therefore followed by WAIT on the
 * connection (the master) that stored it, and the adds are answered only once a replica has them
 * too, or the timeout passed (`short` reports it). A master that has no replica connected (its
 * replica died, or was just promoted away from it) is not waited for: nothing could take over
 * from it with less data, and waiting the timeout out on every batch would only slow the bot.
 */
export interface ReplicaAck {
  /** Replicas that must hold the write (1: the one that a failover would promote). */
  replicas: number;
  timeoutMs: number;
  /** Called when fewer replicas acknowledged than asked within the timeout. */
  short?: (acknowledged: number) => void;
}

export type AfterStore = () => Promise<void>;

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
  return async () => {
    const node = isCluster(redis) ? masterOf(redis, keySlot(hashTag)) : redis;
    if (!node) return;
    const acknowledged = await replicasOf(node)
      .then((connected) =>
        connected === 0 ? 0 : node.call("WAIT", Math.min(ack.replicas, connected), ack.timeoutMs),
      )
      .then(Number, () => 0);
    if (acknowledged < ack.replicas) ack.short?.(acknowledged);
  };
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
export function keySlot(key: string): number {
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
