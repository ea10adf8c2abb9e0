import type { CoreDeps } from "../deps.js";
import type { PollAnswer } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import { createWatchDeliveryHandler } from "./delivery-watch.js";
import { createPollOrchestratorHandler } from "./orchestrator.js";
import { createPollScreeningHandler } from "./screening.js";
import { createStatementPoller } from "./statement.js";

export type { PollAnswer };

export type TrackedHandlerMap = {
  [K in TrackedJob["kind"]]: (job: Extract<TrackedJob, { kind: K }>) => Promise<PollAnswer>;
};

/** One handler per kind of tracked work; the job system calls them (src/jobs/scheduler.ts). */
export function createTrackedHandlers(deps: CoreDeps): TrackedHandlerMap {
  return {
    "poll-screening": createPollScreeningHandler(deps),
    "poll-statement": createStatementPoller(deps),
    "poll-orchestrator": createPollOrchestratorHandler(deps),
    "watch-delivery": createWatchDeliveryHandler(deps),
  };
}
