import { subscribe } from "node:diagnostics_channel";

/**
 * When undici has written a request to its connection: the moment the service starts counting the
 * call against its rate limit. undici publishes `undici:request:create` synchronously inside
 * `request()` (while a connection is free, as the pool's are unless a limit is set), and
 * `undici:request:bodySent` once the request is written; the request object ties the two.
 */
const callbacks = new WeakMap<object, () => void>();
let creating: (() => void) | undefined;

subscribe("undici:request:create", (message) => {
  const { request } = message as { request: object };
  if (creating === undefined) return;
  callbacks.set(request, creating);
  creating = undefined;
});

subscribe("undici:request:bodySent", (message) => {
  const { request } = message as { request: object };
  const callback = callbacks.get(request);
  callbacks.delete(request);
  callback?.();
});

/**
 * Starts `send` (a call of undici's `request`) and calls `onSent` once its request was written.
 * A request undici queued instead (no free connection) is not tied: `onSent` is then never
 * called, and the caller's own fallback (the answer) stands in for it.
 */
export function whenWritten<T>(onSent: () => void, send: () => Promise<T>): Promise<T> {
  creating = onSent;
  try {
    return send();
  } finally {
    creating = undefined;
  }
}
