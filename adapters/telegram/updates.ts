import { within } from "../../src/clock.js";
import type { Logger } from "../../src/core/index.js";
import { storeWithin } from "../../src/store/bounded.js";
import type { Store } from "../../src/store/store.js";

/**
 * An update is run once, whoever receives it: the first instance to claim its `update_id` (SET NX
 * in the shared store) runs it; a re-sent copy is acknowledged and dropped. Telegram keeps an
 * undelivered update for 24 hours, so the mark outlives that.
 */
const UPDATE_DEDUP_TTL_MS = 25 * 3_600_000;

/**
 * The claim is bounded (src/store/bounded.ts): when the store is down it throws soon, and the
 * update is answered "storage is unavailable; nothing was done" instead of run unclaimed.
 */
export function createUpdateClaims(store: Store, botId: () => number) {
  return (updateId: number): Promise<boolean> =>
    storeWithin(store.setIfNotExists(`telegram:update:${botId()}:${updateId}`, "1", UPDATE_DEDUP_TTL_MS));
}

/**
 * Work that runs after the webhook has answered. Stopping waits for it (bounded), so an update
 * that was acknowledged is finished before the process exits.
 */
export function createBackgroundTasks(logger: Logger) {
  const running = new Set<Promise<void>>();
  return {
    run(task: () => Promise<void>): void {
      const promise = task()
        .catch((error: unknown) => logger.error({ err: error }, "telegram: handling an update failed"))
        .finally(() => running.delete(promise));
      running.add(promise);
    },
    /** Resolves when nothing runs, or after `timeoutMs`. */
    async idle(timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (running.size > 0 && Date.now() < deadline) {
        await within(Promise.allSettled([...running]), deadline - Date.now());
      }
    },
    get size(): number {
      return running.size;
    },
  };
}
