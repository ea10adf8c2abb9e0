import type { ActionHandler } from "./command.js";
import type { CoreDeps } from "./deps.js";
import { createWatchDeliveryHandler } from "./energy/delivery-watch.js";
import { createPollOrchestratorHandler } from "./energy/orchestrator-tracking.js";
import { createReconcileOrder5mHandler } from "./energy/reconcile-order5m.js";
import { createReconcileHostStartHandler } from "./host/reconcile-host-start.js";
import { createRecoverIntentHandler } from "./intents/durable.js";
import type { PollAnswer } from "./poll.js";
import type { TrackedJob } from "./ports.js";
import { createPollScreeningHandler } from "./screening/screening-tracking.js";
import { createStatementPoller } from "./statement/statement-tracking.js";

export type { PollAnswer };

export type TrackedHandlerMap = {
  [K in TrackedJob["kind"]]: (job: Extract<TrackedJob, { kind: K }>) => Promise<PollAnswer>;
};

/**
 * One handler per kind of tracked work; the job system calls them (src/jobs/scheduler.ts).
 * `actions` are the core's action handlers: the recovery of a durable action runs its handler.
 */
export function createTrackedHandlers(
  deps: CoreDeps,
  actions: readonly ActionHandler[] = [],
): TrackedHandlerMap {
  return {
    "recover-intent": createRecoverIntentHandler(deps, new Map(actions.map((a) => [a.kind, a]))),
    "reconcile-order5m": createReconcileOrder5mHandler(deps),
    "reconcile-host-start": createReconcileHostStartHandler(deps),
    "poll-screening": createPollScreeningHandler(deps),
    "poll-statement": createStatementPoller(deps),
    "poll-orchestrator": createPollOrchestratorHandler(deps),
    "watch-delivery": createWatchDeliveryHandler(deps),
  };
}
