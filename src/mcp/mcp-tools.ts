import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { AgentToolName } from "../core/index.js";

/**
 * The six tools of CONTRACT.md "Agents": names, descriptions and input schemas (the SDK checks
 * the input against them and lists them in `tools/list`).
 */
const TRON_ADDRESS = z.string().min(1).max(64);

const TOOLS: Record<AgentToolName, { description: string; input: z.ZodRawShape }> = {
  get_prices: {
    description:
      "The energy price list (energy_5m and energy_1h): each period's price in SUN per energy, the current one, and tiers.",
    input: {},
  },
  get_balance: {
    description: "The service account's balance in TRX, as the bot's balance command shows it.",
    input: {},
  },
  check_addresses: {
    description: "Deny-list verdicts for 1 to 1000 TRON addresses (blocked, category, reason code).",
    input: { addresses: z.array(TRON_ADDRESS).min(1).max(1000) },
  },
  list_alerts: { description: "The bot's open and snoozed alerts: id, title, since when, state.", input: {} },
  request_energy: {
    description:
      "Ask for energy for an address (scope request). Checked like a person's energy command (range, deny list, caps); the quote is posted in the operators' channel and a person confirms or cancels it. Follow it with get_request.",
    input: {
      address: TRON_ADDRESS,
      amount: z.union([z.number().int(), z.string().min(1).max(20)]),
      reason: z.string().min(1).max(200),
    },
  },
  get_request: {
    description:
      "What became of an energy request: awaiting_confirmation, approval_pending, ordered, delivered, cancelled, expired, refused or failed; with the order id, the TRX paid and who confirmed.",
    input: { request_id: z.string().min(1).max(64) },
  },
};

export type ToolCall = (
  tool: AgentToolName,
  input: unknown,
) => Promise<{
  structured: Record<string, unknown>;
  text: string;
  isError?: true;
}>;

/** Registers every tool on a server, each calling `call` with its checked input. */
export function registerTools(server: McpServer, call: ToolCall): void {
  for (const [name, tool] of Object.entries(TOOLS) as [AgentToolName, (typeof TOOLS)[AgentToolName]][]) {
    server.registerTool(
      name,
      { description: tool.description, inputSchema: tool.input },
      async (input: unknown) => {
        const result = await call(name, input ?? {});
        return {
          content: [{ type: "text" as const, text: result.text }],
          structuredContent: result.structured,
          ...(result.isError && { isError: true }),
        };
      },
    );
  }
}
