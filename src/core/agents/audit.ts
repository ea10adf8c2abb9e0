import type { CoreDeps } from "../deps.js";
import { auditSpend } from "../spend/spend-audit.js";

/** Where an agent's calls are audited: they come over MCP, from no conversation. */
const MCP_CONVERSATION = "mcp";

/** Every call of an agent in the audit log, as `agent:<name>` with the verb `mcp <tool>`. */
export function auditAgent(
  deps: Pick<CoreDeps, "store" | "now" | "logger">,
  agent: string,
  tool: string,
  result: "ok" | "failed",
  message: string,
  extra: { address?: string; amount?: string; quoteTrx?: string } = {},
): Promise<void> {
  return auditSpend(deps, {
    actor: `agent:${agent}`,
    conversation: MCP_CONVERSATION,
    verb: `mcp ${tool}`,
    ...extra,
    result,
    message,
  });
}
