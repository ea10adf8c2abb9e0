import type { ServerResponse } from "node:http";

/** The fake's getUpdates: answers at once when updates wait, else holds the request up to `timeout` s. */
export interface UpdateQueue {
  /** Queues an update (an update_id is given when it has none); returns its update_id. */
  push(update: Record<string, unknown>): number;
  take(params: Record<string, unknown>, res: ServerResponse): Promise<Record<string, unknown>[]>;
  /** Answers every waiting poll (the fake is closing). */
  close(): void;
  /** getUpdates requests held now, waiting for an update. */
  held(): number;
  /** Held requests the client gave up (closed) before they were answered. */
  abandoned(): number;
}

export function createUpdateQueue(): UpdateQueue {
  let pending: Record<string, unknown>[] = [];
  let nextId = 1;
  let abandoned = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  return {
    push(update) {
      const id = typeof update.update_id === "number" ? update.update_id : nextId++;
      pending.push({ ...update, update_id: id });
      wake();
      return id;
    },
    async take(params, res) {
      // Like Telegram: asking from `offset` confirms every update before it.
      const offset = typeof params.offset === "number" ? params.offset : 0;
      pending = pending.filter((u) => (u.update_id as number) >= offset);
      const limit = typeof params.limit === "number" ? params.limit : 100;
      const timeoutMs = (typeof params.timeout === "number" ? params.timeout : 0) * 1000;
      if (pending.length === 0 && timeoutMs > 0) {
        const answered = await waitForUpdates(waiters, timeoutMs, res);
        if (!answered) abandoned += 1;
      }
      return pending.slice(0, limit);
    },
    close: wake,
    held: () => waiters.size,
    abandoned: () => abandoned,
  };
}

/** Resolves true when an update came or the poll's time was up, false when the client gave up first. */
function waitForUpdates(waiters: Set<() => void>, timeoutMs: number, res: ServerResponse): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const end = (answered: boolean) => {
      clearTimeout(timer);
      waiters.delete(done);
      res.off("close", gaveUp);
      resolve(answered);
    };
    const done = () => end(true);
    // The client gave up (grammY aborts the poll on stop): stop holding the request.
    const gaveUp = () => end(false);
    const timer = setTimeout(done, timeoutMs);
    waiters.add(done);
    res.once("close", gaveUp);
  });
}
