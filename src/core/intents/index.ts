/** The front door of `intents/`: what other folders may use. Anything else here is internal. */
export { handOverIntent, intentDelivered, maxLocalRunsOf, prepareIntent, runIntent } from "./durable.js";
export type { Intent, Lease } from "./intent.js";
export { handoverJobId, INTENT_TTL_MS, isPosted } from "./intent.js";
export { createReconciler, type ReconcileStep } from "./reconciler.js";
export { recoverOpenIntents } from "./recover-at-start.js";
