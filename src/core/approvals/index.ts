/** The front door of `approvals/`: what other folders may use. Anything else here is internal. */

export { describeSpend, renderRequest } from "./approval-render.js";
export { askApproval } from "./gate.js";
export { APPROVE_KIND, openRequest } from "./request.js";
