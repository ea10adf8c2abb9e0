/** The front door of `digest/`: what other folders may use. Anything else here is internal. */

export type { SpendKind } from "./spends.js";
export { energyBoughtOf, SPEND_KINDS, spendsOf } from "./spends.js";
