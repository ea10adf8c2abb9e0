/** The front door of `runway/`: what other folders may use. Anything else here is internal. */
export { keptAccount, readAccount } from "./account.js";
export { botSpentLast24h, rateOf, readSamples } from "./rate.js";
export { withRunway } from "./runway-render.js";
