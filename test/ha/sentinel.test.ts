import { startRedisSentinel } from "../support/redis-ha.js";
import { runHaBot, runHaFailover } from "./ha-bot.js";
import { runHaStorage, useHaRedis } from "./ha-suite.js";

/** A real Sentinel group (a master, a replica, three sentinels), started for this file only. */
const ha = useHaRedis(startRedisSentinel);
runHaStorage("Redis Sentinel", ha);
runHaBot("Redis Sentinel", ha);
runHaFailover("Redis Sentinel", ha);
