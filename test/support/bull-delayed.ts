import { Queue } from "bullmq";
import type { TestRedis } from "./redis.js";

/**
 * A test's hand on the delayed jobs of one BullMQ queue of `createBullQueues` on `redis`: the
 * delay each asked for, as BullMQ stored it, and making them due at once, as the end of their
 * delay would. Close it before `redis.cleanup()`.
 */
export interface DelayedJobs {
  /** The stored delay of every job now delayed, the soonest due first. */
  delays(): Promise<number[]>;
  /** Every delayed job is due now; a worker takes it at once. */
  promote(): Promise<void>;
  close(): Promise<void>;
}

export function bullDelayedJobs(redis: TestRedis, queue: string): DelayedJobs {
  // createBullQueues drops the prefix's trailing colons too.
  const bull = new Queue(queue, { connection: redis.connect(), prefix: redis.prefix.replace(/:+$/, "") });
  return {
    async delays() {
      return (await bull.getDelayed()).map((job) => job.delay);
    },
    async promote() {
      await bull.promoteJobs();
    },
    close: () => bull.close(),
  };
}
