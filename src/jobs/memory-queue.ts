import {
  type AddOptions,
  type Backoff,
  DEFAULT_BACKOFF,
  isPermanentError,
  type JobCounts,
  type JobHandler,
  type JobQueue,
  type JobWorker,
  retryDelayMs,
} from "./queue.js";

/**
 * In-process `JobQueue` for the demo (no Redis, one process): the same semantics as the BullMQ
 * one at small scale. Nothing survives a restart; `close()` drops delayed jobs. Data goes through
 * JSON as it would in Redis, so a handler sees the same values under both.
 */
interface MemoryJob {
  id: string;
  name: string;
  data: string;
  attemptsMade: number;
  attempts: number;
  backoff: Backoff;
  state: "waiting" | "delayed" | "active";
  cancelDelay?: () => void;
  /** When a delayed job comes due (epoch ms). */
  dueAt?: number;
}

interface Runner {
  handler: JobHandler<unknown>;
  concurrency: number;
  inFlight: Set<Promise<void>>;
  closing: boolean;
}

interface QueueState {
  ready: MemoryJob[];
  pending: Map<string, MemoryJob>;
  /** Ids of failed jobs, oldest first, bounded like BullMQ's removeOnFail. */
  failed: Set<string>;
  runners: Runner[];
}

const KEEP_FAILED = 1_000;

/** Calls `fire` once `ms` have passed, unless the function it answers is called first. */
export type StartTimer = (ms: number, fire: () => void) => () => void;

export interface MemoryQueueOptions {
  /**
   * Waits out a delayed job's delay and a repeat's interval (default setTimeout); a test reads the
   * delay and ends it by hand.
   */
  startTimer?: StartTimer;
}

const realTimer: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

export function createMemoryQueues({ startTimer = realTimer }: MemoryQueueOptions = {}): JobQueue {
  const states = new Map<string, QueueState>();
  const delays = new Set<() => void>();
  const slots = new Map<string, number>();
  let nextId = 1;
  let closed = false;

  function stateOf(queue: string): QueueState {
    let state = states.get(queue);
    if (state === undefined) {
      state = { ready: [], pending: new Map(), failed: new Set(), runners: [] };
      states.set(queue, state);
    }
    return state;
  }

  function schedule(state: QueueState, job: MemoryJob, delayMs: number): void {
    if (closed) return;
    if (delayMs <= 0) {
      job.state = "waiting";
      state.ready.push(job);
      pump(state);
      return;
    }
    job.state = "delayed";
    job.dueAt = Date.now() + delayMs;
    const cancel = startTimer(delayMs, () => {
      delays.delete(cancel);
      job.cancelDelay = undefined;
      schedule(state, job, 0);
    });
    job.cancelDelay = cancel;
    delays.add(cancel);
  }

  function pump(state: QueueState): void {
    for (const runner of state.runners) {
      while (!runner.closing && runner.inFlight.size < runner.concurrency && state.ready.length > 0) {
        const job = state.ready.shift()!;
        const run = runJob(state, runner, job).finally(() => {
          runner.inFlight.delete(run);
          pump(state);
        });
        runner.inFlight.add(run);
      }
    }
  }

  async function runJob(state: QueueState, runner: Runner, job: MemoryJob): Promise<void> {
    job.state = "active";
    try {
      const outcome = await runner.handler({
        id: job.id,
        name: job.name,
        data: JSON.parse(job.data),
        attemptsMade: job.attemptsMade,
        maxAttempts: job.attempts,
      });
      if (outcome === "done") {
        state.pending.delete(job.id);
        return;
      }
      if (outcome.data !== undefined) job.data = JSON.stringify(outcome.data);
      schedule(state, job, outcome.laterMs);
    } catch (error) {
      job.attemptsMade += 1;
      if (isPermanentError(error) || job.attemptsMade >= job.attempts) return fail(state, job);
      schedule(state, job, retryDelayMs(job.backoff, job.attemptsMade, error));
    }
  }

  function fail(state: QueueState, job: MemoryJob): void {
    state.pending.delete(job.id);
    state.failed.add(job.id);
    if (state.failed.size > KEEP_FAILED) state.failed.delete(state.failed.values().next().value!);
  }

  /** Each schedule's stop: ends the wait for its next run. */
  const repeaters = new Map<string, () => void>();

  const queues: JobQueue = {
    async add(queue, name, data, opts: AddOptions = {}) {
      if (closed) throw new Error("job queue is closed");
      const state = stateOf(queue);
      const id = opts.jobId ?? `${nextId++}`;
      if (state.pending.has(id) || state.failed.has(id)) return;
      const job: MemoryJob = {
        id,
        name,
        data: JSON.stringify(data),
        attemptsMade: 0,
        attempts: opts.attempts ?? 1,
        backoff: opts.backoff ?? DEFAULT_BACKOFF,
        state: "waiting",
      };
      state.pending.set(id, job);
      schedule(state, job, opts.delayMs ?? 0);
    },

    async process<T>(queue: string, handler: JobHandler<T>, { concurrency }: { concurrency: number }) {
      const state = stateOf(queue);
      const runner: Runner = {
        handler: handler as JobHandler<unknown>,
        concurrency: Math.max(1, concurrency),
        inFlight: new Set(),
        closing: false,
      };
      state.runners.push(runner);
      pump(state);
      const worker: JobWorker = {
        async close() {
          runner.closing = true;
          state.runners = state.runners.filter((r) => r !== runner);
          await Promise.all(runner.inFlight);
          // Jobs this runner would have taken go to the remaining runners.
          pump(state);
        },
      };
      return worker;
    },

    async counts(queue) {
      return countsOf(stateOf(queue));
    },

    async dueWithin(queue, ms) {
      const until = Date.now() + ms;
      const jobs = [...stateOf(queue).pending.values()];
      return jobs.filter((job) => job.state !== "delayed" || (job.dueAt ?? 0) <= until).length;
    },

    async remove(queue, jobId) {
      const state = stateOf(queue);
      const job = state.pending.get(jobId);
      if (job === undefined || job.state === "active") return;
      if (job.cancelDelay !== undefined) {
        job.cancelDelay();
        delays.delete(job.cancelDelay);
      }
      state.pending.delete(jobId);
      state.ready = state.ready.filter((j) => j !== job);
    },

    async pace(key, gapMs, notBeforeMs = 0) {
      const now = Date.now();
      const slot = Math.max(now + Math.max(0, notBeforeMs), slots.get(key) ?? 0);
      slots.set(key, slot + Math.max(0, gapMs));
      if (slots.size > 10_000) for (const [k, at] of slots) if (at < now) slots.delete(k);
      return slot - now;
    },

    async repeat(queue, schedulerId, everyMs, name, data) {
      if (closed) throw new Error("job queue is closed");
      const key = `${queue}\u0000${schedulerId}`;
      const declared = repeaters.get(key);
      declared?.();
      const arm = () => repeaters.set(key, startTimer(Math.max(1, everyMs), fire));
      // The schedule's id is the job's id: a run still going when the next is due is not doubled.
      const fire = () => {
        if (closed) return;
        arm();
        void queues.add(queue, name, data, { jobId: schedulerId }).catch(() => {});
      };
      // Declared again (a restart, another instance's start): the schedule goes on, not a run more.
      if (declared) arm();
      else fire();
    },

    async close() {
      closed = true;
      for (const stop of repeaters.values()) stop();
      repeaters.clear();
      for (const cancel of delays) cancel();
      delays.clear();
      const runners = [...states.values()].flatMap((s) => s.runners);
      for (const runner of runners) runner.closing = true;
      await Promise.all(runners.flatMap((r) => [...r.inFlight]));
    },
  };
  return queues;
}

function countsOf(state: QueueState): JobCounts {
  const counts: JobCounts = { waiting: 0, active: 0, delayed: 0, failed: state.failed.size };
  for (const job of state.pending.values()) counts[job.state] += 1;
  return counts;
}
