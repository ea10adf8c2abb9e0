import { startRedisCluster } from "../support/redis-ha.js";
import { runHaBot, runHaFailover } from "./ha-bot.js";
import { runHaStorage, useHaRedis } from "./ha-suite.js";

/** A real Redis Cluster (3 masters, a replica each), started for this file only. */
const ha = useHaRedis(startRedisCluster);
runHaStorage("Redis Cluster", ha);
runHaBot("Redis Cluster", ha);
runHaFailover("Redis Cluster", ha);
