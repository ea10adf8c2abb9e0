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
