import type { CoreDeps } from "../deps.js";
import { auditAgent } from "./audit.js";
import { agentAlerts, agentBalance, agentCheckAddresses, agentPrices } from "./reads.js";
import { requestEnergy } from "./request-energy.js";
import { readRequest } from "./requests.js";

/** An agent of OPS_AGENT_TOKENS, as the transport authenticated it. */
export interface AgentIdentity {
  name: string;
  scope: "read" | "request";
}

/** What a tool answers: the `structuredContent`, one text line, and whether it is a tool error. */
export interface AgentToolResult {
  structured: Record<string, unknown>;
  text: string;
  isError?: true;
}

/** The tools' inputs, as the transport's zod schemas checked them. */
export interface AgentToolInputs {
  get_prices: Record<string, never>;
  get_balance: Record<string, never>;
  check_addresses: { addresses: string[] };
  list_alerts: Record<string, never>;
  request_energy: { address: string; amount: number | string; reason: string };
  get_request: { request_id: string };
}
export type AgentToolName = keyof AgentToolInputs;

const SCOPE_OF: Record<AgentToolName, AgentIdentity["scope"]> = {
  get_prices: "read",
  get_balance: "read",
  check_addresses: "read",
  list_alerts: "read",
  request_energy: "request",
  get_request: "read",
};

/** A tool error: the text says what is wrong; nothing was done. */
export const toolError = (text: string): AgentToolResult => ({
  structured: { error: text },
  text,
  isError: true,
});

/**
 * Runs one tool for an agent: the scope first (a `read` token asking for energy is refused before
 * any work), then the core's read or request; every call lands in the audit log.
 */
export async function callAgentTool<T extends AgentToolName>(
  deps: CoreDeps,
  agent: AgentIdentity,
  tool: T,
  input: AgentToolInputs[T],
): Promise<AgentToolResult> {
  if (SCOPE_OF[tool] === "request" && agent.scope !== "request") {
    const line = `${tool} needs the scope request; this token has the scope ${agent.scope}. Nothing was done.`;
    await auditAgent(deps, agent.name, tool, "failed", line);
    return toolError(line);
  }
  const result = await run(deps, agent, tool, input);
  if (tool !== "request_energy") {
    await auditAgent(deps, agent.name, tool, result.isError ? "failed" : "ok", result.text.slice(0, 200));
  }
  return result;
}

async function run(
  deps: CoreDeps,
  agent: AgentIdentity,
  tool: AgentToolName,
  input: AgentToolInputs[AgentToolName],
): Promise<AgentToolResult> {
  switch (tool) {
    case "get_prices":
      return answer(await agentPrices(deps));
    case "get_balance":
      return answer(await agentBalance(deps));
    case "check_addresses":
      return answer(await agentCheckAddresses(deps, (input as AgentToolInputs["check_addresses"]).addresses));
    case "list_alerts":
      return answer(await agentAlerts(deps));
    case "request_energy": {
      const ask = input as AgentToolInputs["request_energy"];
      const result = await requestEnergy(deps, { agent: agent.name, ...ask });
      const text =
        result.status === "refused"
          ? `Refused, nothing was posted: ${result.refusal}`
          : `Request ${result.request_id} posted for an operator to confirm (quote ${result.quote_trx} TRX); follow it with get_request.`;
      return { structured: result, text };
    }
    case "get_request":
      return requestStatus(deps, agent, (input as AgentToolInputs["get_request"]).request_id);
  }
}

const answer = (read: { data: Record<string, unknown>; text: string }): AgentToolResult => ({
  structured: read.data,
  text: read.text,
});

/** An agent reads its own requests only: another agent's is as unknown as one never made. */
async function requestStatus(deps: CoreDeps, agent: AgentIdentity, id: string): Promise<AgentToolResult> {
  const request = await readRequest(deps, id);
  if (!request || request.agent !== agent.name)
    return toolError(`No request ${id} is known (requests are kept 7 days).`);
  const structured = {
    status: request.status,
    ...(request.orderId !== undefined && { order_id: request.orderId }),
    ...(request.paidTrx !== undefined && { paid_trx: request.paidTrx }),
    ...(request.confirmedBy !== undefined && { confirmed_by: request.confirmedBy }),
  };
  const parts = [`Request ${id}: ${request.status}`];
  if (request.orderId) parts.push(`order ${request.orderId}`);
  if (request.paidTrx) parts.push(`paid ${request.paidTrx} TRX`);
  if (request.confirmedBy) parts.push(`by ${request.confirmedBy}`);
  if (request.line && (request.status === "refused" || request.status === "failed")) parts.push(request.line);
  return { structured, text: parts.join(", ") };
}
