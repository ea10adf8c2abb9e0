/** The front door of `paste-check/`: what other folders may use. Anything else here is internal. */
export { checkPaste, type PastedMessage } from "./paste-check.js";
