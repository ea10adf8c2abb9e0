import type { BulkJobOptions, Queue } from "bullmq";

interface PendingAdd {
  name: string;
  data: unknown;
  opts: BulkJobOptions;
  replicated: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export type AddJob = (
  name: string,
  data: unknown,
  opts: BulkJobOptions,
  replicated?: boolean,
) => Promise<void>;

/**
 * Adds asked for in the same turn of the event loop (a burst of webhooks, each stored before its
 * 2xx) reach Redis as one pipeline through BullMQ's own `addBulk`, instead of one write and one
 * reply per job: at a few thousand deliveries per second that halves what storing costs. Each
 * caller still learns whether its own job is stored. The pipeline's answer is one error for the
 * lot if any job failed, so then each job is added again on its own (one already stored is found
 * by its id and not added twice). `afterStore` runs before an add that asked to be `replicated`
 * is answered (the replicas' acknowledgement, see `replica-ack.ts`).
 */
export function createAddBatcher(
  queue: Queue,
  afterStore: () => () => Promise<void> = () => async () => {},
): AddJob {
  let pending: PendingAdd[] = [];

  async function flush(): Promise<void> {
    const batch = pending;
    pending = [];
    const confirm = afterStore();
    const stored = await addAll(batch);
    for (const add of stored) if (!add.replicated) add.resolve();
    const waiting = stored.filter((add) => add.replicated);
    if (waiting.length === 0) return;
    try {
      await confirm();
      for (const add of waiting) add.resolve();
    } catch (error) {
      for (const add of waiting) add.reject(error);
    }
  }

  /** The adds that were stored; each one that was not is rejected. */
  async function addAll(batch: PendingAdd[]): Promise<PendingAdd[]> {
    try {
      await queue.addBulk(batch.map(({ name, data, opts }) => ({ name, data, opts })));
      return batch;
    } catch {
      const stored: PendingAdd[] = [];
      await Promise.all(
        batch.map((add) => queue.add(add.name, add.data, add.opts).then(() => stored.push(add), add.reject)),
      );
      return stored;
    }
  }

  return (name, data, opts, replicated = false) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ name, data, opts, replicated, resolve, reject });
      if (pending.length === 1) setImmediate(() => void flush());
    });
}
