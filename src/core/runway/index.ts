/** The front door of `runway/`: what other folders may use. Anything else here is internal. */
export { withRunway } from "./runway-render.js";
