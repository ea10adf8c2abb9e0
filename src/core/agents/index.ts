/** The front door of `agents/`: what other folders may use. Anything else here is internal. */
export { agentRequestLifecycle } from "./lifecycle.js";
export { type AgentIdentity, type AgentToolName, callAgentTool, toolError } from "./tools.js";
