import { within } from "../../src/clock.js";
/**
 * Work that continues after Slack was acknowledged (a 15-second screening, a 10-second order).
 * Shutdown waits for it, bounded, so a deploy does not cut an order's answer in half.
 */
export interface Inflight {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves when nothing runs, or after `timeoutMs`. */
  idle(timeoutMs: number): Promise<void>;
  readonly size: number;
}

export function createInflight(): Inflight {
  const running = new Set<Promise<unknown>>();
  return {
    get size() {
      return running.size;
    },
    run(work) {
      const promise = work();
      running.add(promise);
      const forget = () => running.delete(promise);
      promise.then(forget, forget);
      return promise;
    },
    async idle(timeoutMs) {
      await within(Promise.allSettled([...running]), timeoutMs);
    },
  };
}
