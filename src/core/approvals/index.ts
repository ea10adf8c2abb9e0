/** The front door of `approvals/`: what other folders may use. Anything else here is internal. */
export { askApproval } from "./gate.js";
