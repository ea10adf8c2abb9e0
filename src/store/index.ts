export { createMemoryStore } from "./memory-store.js";
export { createRedisStore } from "./redis-store.js";
export type { Store } from "./store.js";
