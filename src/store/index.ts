export { createMemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { createRedisStore, type RedisStoreOptions } from "./redis-store.js";
export type { Store } from "./store.js";
export {
  type CorruptValueHandler,
  getJson,
  setJson,
  setJsonIfNotExists,
  takeJson,
} from "./store-json.js";
