import { createHash } from "node:crypto";
import type { RedisClient } from "./redis-connect.js";

/**
 * A Lua script sent once by SHA and re-sent in full only when the server does not know it yet.
 * On a cluster the script runs on the node of its first key: every key it is given must be in
 * the same slot (hash-tag them, see `redisKeyLayout`).
 */
export interface RedisScript {
  run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

export function defineRedisScript(lua: string): RedisScript {
  const sha = createHash("sha1").update(lua).digest("hex");
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        // NOSCRIPT after a restart or SCRIPT FLUSH: EVAL loads it again for the next EVALSHA.
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return redis.eval(lua, keys.length, ...keys, ...args);
      }
    },
  };
}
