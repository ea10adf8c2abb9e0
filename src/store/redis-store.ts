import { Redis } from "ioredis";
import { within } from "../clock.js";
import { checkIncrement, checkMaxLength, checkReservation, checkTtlMs } from "./checks.js";
import { isCluster, quitRedis, type RedisClient } from "./redis-connect.js";
import { defineRedisScript } from "./redis-script.js";
import type { Store } from "./store.js";

/**
 * The real `Store`: shared by every instance of the bot. Every key is prefixed, so several bots
 * (or test files) can share one Redis. Given a connection, the store borrows it and `close()`
 * leaves it open; given a URL, the store owns its connection and `close()` quits it.
 */
export type RedisStoreOptions = (
  | { redis: RedisClient; url?: undefined }
  | { url: string; redis?: undefined; onError?: (error: Error) => void }
) & {
  /** Prepended to every key as is, e.g. `opsbot:`. */
  prefix: string;
  /** How long `ping()` waits before answering false (an offline client queues commands). */
  pingTimeoutMs?: number;
};

const DEFAULT_PING_TIMEOUT_MS = 1_000;

// The TTL is set only when INCRBY created the key, so a running counter keeps its first expiry.
const incrByScript = defineRedisScript(`
local existed = redis.call('EXISTS', KEYS[1])
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if existed == 0 and ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value
`);

// SET NX for each key, in order; 1 where this call created the key. ARGV: value, TTL ('' = none).
const setManyIfNotExistsScript = defineRedisScript(`
local out = {}
for i, key in ipairs(KEYS) do
  local created
  if ARGV[2] == '' then
    created = redis.call('SET', key, ARGV[1], 'NX')
  else
    created = redis.call('SET', key, ARGV[1], 'PX', ARGV[2], 'NX')
  end
  out[i] = created and 1 or 0
end
return out
`);

// Check and add in one script: two reservations can never both pass a check that only one fits.
const reserveWithinScript = defineRedisScript(`
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if current + amount > tonumber(ARGV[2]) then return {0, current} end
local existed = redis.call('EXISTS', KEYS[1])
local total = redis.call('INCRBY', KEYS[1], amount)
if existed == 0 and ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, total}
`);

// Mark, number and item in one script: replicated as one transaction, so never one without the others.
const appendOnceScript = defineRedisScript(`
if ARGV[4] == '1' then
  local existing = redis.call('GET', KEYS[3])
  if existing then return {0, tonumber(existing)} end
end
local floor = tonumber(redis.call('GET', KEYS[2]) or '0')
local seq = redis.call('INCR', KEYS[1])
if seq <= floor then
  seq = floor + 1
  redis.call('SET', KEYS[1], seq)
end
while not redis.call('SET', ARGV[1] .. seq, ARGV[2], 'PX', ARGV[3], 'NX') do
  seq = redis.call('INCR', KEYS[1])
end
if ARGV[4] == '1' then redis.call('SET', KEYS[3], seq, 'PX', ARGV[3]) end
return {1, seq}
`);

// One ledger entry: never twice for an id, only on the head it was built on, with its list and id.
// KEYS: head, id, list, tallies…. ARGV: prev seq, prev hash, new hash, new at, value, TTL, then (by, TTL) per tally.
const chainAppendScript = defineRedisScript(`
local existing = redis.call('GET', KEYS[2])
if existing then return {2, existing} end
local head = redis.call('HMGET', KEYS[1], 'seq', 'hash')
local seq = tonumber(head[1] or '0')
if seq ~= tonumber(ARGV[1]) or (seq > 0 and head[2] ~= ARGV[2]) then return {0, ''} end
seq = seq + 1
redis.call('HSET', KEYS[1], 'seq', seq, 'hash', ARGV[3], 'at', ARGV[4])
redis.call('RPUSH', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6])
for i = 4, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[2 * i - 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
end
return {1, tostring(seq)}
`);

export function createRedisStore(options: RedisStoreOptions): Store {
  const owned = options.redis === undefined;
  const redis = options.redis ?? ownConnection(options.url, options.onError);
  const k = (key: string) => options.prefix + key;
  const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;

  return {
    get: (key) => redis.get(k(key)),
    getMany: async (keys) => {
      if (keys.length === 0) return [];
      // MGET must not cross slots on a cluster: one GET per key, auto-pipelined per node.
      if (isCluster(redis)) return Promise.all(keys.map((key) => redis.get(k(key))));
      return redis.mget(keys.map(k));
    },
    set: async (key, value, ttlMs) => {
      const ttl = checkTtlMs(ttlMs);
      if (ttl === undefined) await redis.set(k(key), value);
      else await redis.set(k(key), value, "PX", ttl);
    },
    setIfNotExists: async (key, value, ttlMs) => {
      const ttl = checkTtlMs(ttlMs);
      const reply =
        ttl === undefined
          ? await redis.set(k(key), value, "NX")
          : await redis.set(k(key), value, "PX", ttl, "NX");
      return reply === "OK";
    },
    setManyIfNotExists: async (keys, value, ttlMs) => {
      if (keys.length === 0) return [];
      const ttl = checkTtlMs(ttlMs);
      // A script's keys must share a slot on a cluster: there, one SET NX per key, auto-pipelined per node.
      if (isCluster(redis)) {
        const set = (key: string) =>
          ttl === undefined ? redis.set(k(key), value, "NX") : redis.set(k(key), value, "PX", ttl, "NX");
        return (await Promise.all(keys.map(set))).map((reply) => reply === "OK");
      }
      const reply = (await setManyIfNotExistsScript.run(redis, keys.map(k), [value, ttl ?? ""])) as number[];
      return reply.map((created) => created === 1);
    },
    take: (key) => redis.getdel(k(key)),
    del: async (key) => {
      await redis.del(k(key));
    },
    incrBy: async (key, by, ttlMs) => {
      checkIncrement(by);
      const ttl = checkTtlMs(ttlMs);
      return Number(await incrByScript.run(redis, [k(key)], [by, ttl ?? ""]));
    },
    reserveWithin: async (key, amount, limit, ttlMs) => {
      checkReservation(amount, limit);
      const ttl = checkTtlMs(ttlMs);
      const [ok, total] = (await reserveWithinScript.run(redis, [k(key)], [amount, limit, ttl ?? ""])) as [
        number,
        number,
      ];
      return { ok: ok === 1, total: Number(total) };
    },
    appendOnce: async (log, value, ttlMs) => {
      const ttl = checkTtlMs(ttlMs) ?? ttlMs;
      // Without a mark, KEYS[3] is the counter again: every key stays in one slot on a cluster.
      const keys = [k(log.counter), k(log.floor), k(log.mark ?? log.counter)];
      const [appended, seq] = (await appendOnceScript.run(redis, keys, [
        k(log.itemPrefix),
        value,
        ttl,
        log.mark === undefined ? "0" : "1",
      ])) as [number, number];
      return { seq: Number(seq), appended: appended === 1 };
    },
    chainAppend: async (chain, entry, ttlMs) => {
      const ttl = checkTtlMs(ttlMs) ?? ttlMs;
      const tallies = entry.tallies ?? [];
      const keys = [
        k(chain.head),
        k(chain.idPrefix + entry.id),
        k(entry.list),
        ...tallies.map((t) => k(t.key)),
      ];
      const [kind, value] = (await chainAppendScript.run(redis, keys, [
        entry.prev.seq,
        entry.prev.hash,
        entry.hash,
        entry.at,
        entry.value,
        ttl,
        ...tallies.flatMap((t) => {
          checkIncrement(t.by);
          return [t.by, checkTtlMs(t.ttlMs) ?? t.ttlMs];
        }),
      ])) as [number, string];
      if (kind === 2) return { kind: "exists", value };
      return kind === 1 ? { kind: "appended", seq: Number(value) } : { kind: "moved" };
    },
    listSlice: async (key, start, count) =>
      count <= 0 ? [] : redis.lrange(k(key), Math.floor(start), Math.floor(start + count) - 1),
    listPush: async (key, value, maxLength) => {
      const max = checkMaxLength(maxLength);
      const replies = await redis
        .multi()
        .lpush(k(key), value)
        .ltrim(k(key), 0, max - 1)
        .exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    listRange: async (key, count) => (count <= 0 ? [] : redis.lrange(k(key), 0, Math.floor(count) - 1)),
    hashSet: async (key, field, value, ttlMs) => {
      if (ttlMs === undefined) {
        await redis.hset(k(key), field, value);
        return;
      }
      const ttl = checkTtlMs(ttlMs) ?? ttlMs;
      const replies = await redis.multi().hset(k(key), field, value).pexpire(k(key), ttl).exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    hashGet: (key, field) => redis.hget(k(key), field),
    hashGetAll: (key) => redis.hgetall(k(key)),
    hashGetMany: async (key, fields) => (fields.length === 0 ? [] : redis.hmget(k(key), ...fields)),
    hashSetMany: async (key, entries) => {
      if (entries.length > 0) await redis.hset(k(key), ...entries.flat());
    },
    hashDel: async (key, field) => {
      await redis.hdel(k(key), field);
    },
    setAdd: async (key, ...members) => (members.length === 0 ? 0 : redis.sadd(k(key), ...members)),
    setMembers: (key) => redis.smembers(k(key)),
    setRemove: async (key, ...members) => {
      if (members.length > 0) await redis.srem(k(key), ...members);
    },
    ping: () => pingWithin(redis, pingTimeoutMs),
    close: async () => {
      if (owned) await quitRedis(redis);
    },
  };
}

function ownConnection(url: string, onError?: (error: Error) => void): Redis {
  const redis = new Redis(url, { enableAutoPipelining: true });
  // Without a listener ioredis prints every reconnect failure; commands still reject on their own.
  redis.on("error", onError ?? (() => {}));
  return redis;
}

const pingWithin = (redis: RedisClient, timeoutMs: number): Promise<boolean> =>
  within(
    answers(redis).catch(() => false),
    timeoutMs,
    () => false,
  );

/** A cluster answers when every master does: a slot whose master is gone is a store that is down. */
async function answers(redis: RedisClient): Promise<boolean> {
  if ((await redis.ping()) !== "PONG") return false;
  if (!isCluster(redis)) return true;
  const masters = redis.nodes("master");
  if (masters.length === 0) return false;
  const replies = await Promise.all(masters.map((node) => node.ping()));
  return replies.every((reply) => reply === "PONG");
}
