import { sleep as realSleep } from "../../clock.js";
import { isServiceError } from "../../service/errors.js";
import type { Logger } from "../logger.js";

/**
 * Sending a money POST again, only with the same idempotency key (the caller's `call` always
 * carries it): the service answers a repeat with the first order (208) instead of charging twice.
 * After a network error or a timeout it is sent once more; while the first is still running the
 * service answers 409 duplicate_request_processing with a wait, which is honoured a few times,
 * and pools at capacity answer 5003 ("retry after 2 to 3 seconds"), which is retried once.
 */
export const BUSY_RETRIES = 3;
/** Cap on one wait for duplicate_request_processing, whatever `retry_after_seconds` says. */
export const BUSY_WAIT_MAX_MS = 5_000;
const BUSY_WAIT_DEFAULT_MS = 1_000;
/** The spec: on 5003 "retry after 2 to 3 seconds". */
export const CAPACITY_WAIT_MS = 2_500;

export interface ResendOptions {
  logger: Logger;
  /** For the log lines. */
  endpoint: string;
  sleep?: (ms: number) => Promise<void>;
}

export async function withResend<T>(call: () => Promise<T>, options: ResendOptions): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  let lostError: unknown;
  let busy = 0;
  let capacityRetried = false;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!isServiceError(error)) throw error;
      const lost = error.kind === "timeout" || error.kind === "network";
      if (lost && lostError === undefined) {
        lostError = error;
        options.logger.warn(
          { endpoint: options.endpoint, kind: error.kind },
          "no answer; sending again with the same idempotency key",
        );
        continue;
      }
      if (error.code === "duplicate_request_processing" && busy < BUSY_RETRIES) {
        busy += 1;
        const waitMs = Math.min(error.retryAfterMs ?? BUSY_WAIT_DEFAULT_MS, BUSY_WAIT_MAX_MS);
        options.logger.info(
          { endpoint: options.endpoint, waitMs },
          "order still processing; asking again after the wait",
        );
        await sleep(waitMs);
        continue;
      }
      if (error.code === 5003 && !capacityRetried) {
        capacityRetried = true;
        options.logger.info({ endpoint: options.endpoint }, "pools at capacity; asking again after the wait");
        await sleep(CAPACITY_WAIT_MS);
        continue;
      }
      // After a lost send, a 429/503 says nothing about that first one: the outcome stays unknown.
      const refusedLater = error.httpStatus === 429 || error.httpStatus === 503;
      throw lostError !== undefined && refusedLater ? lostError : error;
    }
  }
}
