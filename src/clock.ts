/** Milliseconds since the epoch. Injected everywhere time matters so tests can move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The one "promise with a timeout": `promise`'s value if it settles within `ms`, else what `late()`
 * answers (undefined without it; a `late` that throws makes the wait reject with its error). The
 * promise itself is not cancelled: it keeps running, and what it settles to later is dropped.
 */
export function within<T>(promise: PromiseLike<T>, ms: number): Promise<T | undefined>;
export function within<T, L>(promise: PromiseLike<T>, ms: number, late: () => L): Promise<T | L>;
export async function within<T, L>(
  promise: PromiseLike<T>,
  ms: number,
  late?: () => L,
): Promise<T | L | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L | undefined>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late?.());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` with a signal that aborts it after `ms` (reason: a `TimeoutError`, as
 * `AbortSignal.timeout` gives), and clears the timer as soon as `work` settles.
 * `AbortSignal.timeout` keeps its timer, the signal and whatever listens to it (a request's
 * handlers, its buffers) alive for the whole `ms`, long after the answer came back.
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException("deadline passed", "TimeoutError")), ms);
  try {
    return await work(deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}
