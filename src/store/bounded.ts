import { within } from "../clock.js";
/**
 * A store call an adapter makes before it answers (the once-only marks of Slack requests and
 * Telegram updates) must not outlast the platform's patience: Slack shows an error after 3 s. A
 * Redis that is down or hung is given this long, then the caller answers "storage is unavailable".
 * The call itself is not cancelled; a mark it writes late only makes a retry look like a repeat,
 * and nothing retries a request that was answered.
 */
export const STORE_ANSWER_TIMEOUT_MS = 1_500;

class StoreTimeoutError extends Error {
  override readonly name = "StoreTimeoutError";
  readonly code = "store_timeout";
}

/** The value of `promise`, or a StoreTimeoutError after `ms`. */
export const storeWithin = <T>(promise: Promise<T>, ms: number = STORE_ANSWER_TIMEOUT_MS): Promise<T> =>
  within(promise, ms, () => {
    throw new StoreTimeoutError(`the store did not answer within ${ms} ms`);
  });
