import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AgentIdentity,
  type AgentToolName,
  type CoreDeps,
  callAgentTool,
  toolError,
} from "../core/index.js";
import { type HttpRoute, isBodyTooLarge, readRawBody, sendJson, sendTooLarge } from "../http/server.js";
import { NoFreeSlotError, type RateLimiter } from "../store/rate-limit.js";
import { type AgentTokenEntry, agentOf } from "./agent-auth.js";
import { originAllowed } from "./allowed-origin.js";
import { registerTools } from "./mcp-tools.js";

/** CONTRACT.md: more than this many tool calls a minute per token get a tool error. */
const AGENT_CALLS_PER_MINUTE = 60;
const BODY_LIMIT_BYTES = 256 * 1024;

export interface McpRouteOptions {
  deps: CoreDeps;
  agents: readonly AgentTokenEntry[];
  /** Shared by every instance (Redis): one bucket per agent name. */
  limiter: RateLimiter<string>;
  version: string;
  /** PUBLIC_URL: the one browser origin let in (unset: the loopback names). */
  publicUrl?: string;
}

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (a server and transport
 * per request, JSON answers), with the official SDK. A foreign `Origin` gets 403 and a missing or
 * unknown bearer token 401, before anything is read or done. Mounted only when OPS_AGENT_TOKENS is
 * set (else 404).
 */
export function mcpRoute(options: McpRouteOptions): HttpRoute {
  // The SDK is loaded only when agents are let in, and meanwhile: it is a third of a second of start.
  const sdk = loadSdk();
  return {
    method: "POST",
    path: "/mcp",
    async handler(req, res) {
      if (!originAllowed(req, options.publicUrl)) return forbiddenOrigin(res);
      const agent = agentOf(req, options.agents);
      if (!agent) return unauthorized(res);
      let body: unknown;
      try {
        body = JSON.parse((await readRawBody(req, BODY_LIMIT_BYTES)).toString("utf8"));
      } catch (error) {
        if (isBodyTooLarge(error)) return sendTooLarge(res, error);
        return sendJson(res, 400, {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error" },
        });
      }
      await serve(await sdk, options, agent, req, res, body);
    },
  };
}

function forbiddenOrigin(res: ServerResponse): void {
  sendJson(res, 403, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32000, message: "Forbidden: this Origin may not call /mcp" },
  });
}

function unauthorized(res: ServerResponse): void {
  res.setHeader("www-authenticate", 'Bearer realm="opsbot"');
  sendJson(res, 401, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32001, message: "missing or unknown bearer token (OPS_AGENT_TOKENS)" },
  });
}

async function loadSdk() {
  const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
  ]);
  return { McpServer, StreamableHTTPServerTransport };
}

async function serve(
  { McpServer, StreamableHTTPServerTransport }: Awaited<ReturnType<typeof loadSdk>>,
  options: McpRouteOptions,
  agent: AgentIdentity,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = new McpServer({ name: "opsbot", version: options.version });
  registerTools(server, (tool, input) => callLimited(options, agent, tool, input));
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

async function callLimited(
  options: McpRouteOptions,
  agent: AgentIdentity,
  tool: AgentToolName,
  input: unknown,
) {
  try {
    await options.limiter.acquire([agent.name], { maxWaitMs: 0 });
  } catch (error) {
    if (!(error instanceof NoFreeSlotError)) throw error;
    const seconds = Math.max(1, Math.ceil(error.waitMs / 1000));
    return toolError(
      `Rate limit: at most ${AGENT_CALLS_PER_MINUTE} calls a minute per token; try again in ${seconds} s. Nothing was done.`,
    );
  }
  return callAgentTool(options.deps, agent, tool, input as never);
}
