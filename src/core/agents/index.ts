/** The front door of `agents/`: what other folders may use. Anything else here is internal. */
export { agentOutcomeOfApproval } from "./approval.js";
export { noteAgentDelivered, noteAgentOutcome } from "./requests.js";
export { type AgentIdentity, type AgentToolName, callAgentTool, toolError } from "./tools.js";
