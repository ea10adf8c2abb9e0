/** The front door of `runway/`: what other folders may use. Anything else here is internal. */
export { readAccount } from "./account.js";
export { withRunway } from "./runway-render.js";
