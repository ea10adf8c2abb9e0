/** The front door of `digest/`: what other folders may use. Anything else here is internal. */
export { spendsOf } from "./spends.js";
