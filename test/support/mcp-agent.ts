import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach } from "vitest";

/** What a tool call answers, as the SDK's client returns it. */
export interface ToolAnswer {
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/**
 * An agent as the tests play it: the MCP SDK's own client over real HTTP to the bot's `/mcp`, with
 * a bearer token. Every client connected in a test is closed after it.
 */
export function useMcpAgents(name: string) {
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => {});
  });
  return {
    async connect(origin: string, token: string): Promise<Client> {
      const client = new Client({ name, version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
  };
}

export const callTool = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> => (await client.callTool({ name, arguments: args })) as ToolAnswer;

/** The answer's text content, lines joined. */
export const textOf = (answer: ToolAnswer): string => answer.content.map((c) => c.text ?? "").join("\n");
