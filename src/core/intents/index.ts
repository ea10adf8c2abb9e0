/** The front door of `intents/`: what other folders may use. Anything else here is internal. */
export { handOverIntent, intentDelivered, maxLocalRunsOf, prepareIntent, runIntent } from "./durable.js";
export { type Intent, type Lease, saveOutcome } from "./intent.js";
