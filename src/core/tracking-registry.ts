import type { ActionHandler } from "./command.js";
import type { CoreDeps } from "./deps.js";
import type { TrackedContext, TrackedHandler, TrackedKind } from "./feature.js";
import { features } from "./features.js";

export type TrackedHandlerMap = { [K in TrackedKind]: TrackedHandler<K> };

/**
 * One handler per kind of tracked work, from the features that schedule it; the job system calls
 * them (src/jobs/scheduler.ts). `actions` are the core's action handlers: the recovery of a durable
 * action runs its handler.
 */
export function createTrackedHandlers(
  deps: CoreDeps,
  actions: readonly ActionHandler[] = [],
): TrackedHandlerMap {
  const context: TrackedContext = { deps, actions };
  const handlers = new Map<string, unknown>();
  for (const feature of features) {
    for (const [kind, create] of Object.entries(feature.tracked ?? {})) {
      if (handlers.has(kind)) throw new Error(`tracked work "${kind}" has two handlers`);
      handlers.set(kind, (create as (ctx: TrackedContext) => unknown)(context));
    }
  }
  // Every kind is present: features.ts does not compile otherwise (EveryTrackedKindHandled).
  return Object.fromEntries(handlers) as TrackedHandlerMap;
}
