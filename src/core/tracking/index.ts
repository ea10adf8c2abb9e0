import type { CoreDeps } from "../deps.js";
import type { TrackedJob } from "../ports.js";

export type PollAnswer = { done: true } | { again: true; delayMs: number };

export type TrackedHandlerMap = {
  [K in TrackedJob["kind"]]: (job: Extract<TrackedJob, { kind: K }>) => Promise<PollAnswer>;
};

/** One handler per kind of tracked work; the job system calls them (src/jobs/scheduler.ts). */
export function createTrackedHandlers(deps: CoreDeps): TrackedHandlerMap {
  const pending = async (job: TrackedJob): Promise<PollAnswer> => {
    deps.logger.warn({ kind: job.kind }, "no handler for this tracked job yet");
    return { done: true };
  };
  return {
    "poll-screening": pending,
    "poll-statement": pending,
    "poll-orchestrator": pending,
    "watch-delivery": pending,
  };
}
