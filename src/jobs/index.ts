export { createBullQueues } from "./bull-queue.js";
export { createMemoryQueues } from "./memory-queue.js";
