import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import type { FigureResult } from "../support/report.js";
import { startSandbox } from "../support/sandbox.js";
import { percentile, ratio, round } from "../support/stats.js";
import { problemNote, startBot, type World } from "../support/world.js";

/**
 * Figure 16: agents over MCP. The SDK's own client over real HTTP against an in-process bot.
 *  - reads: `get_prices` and `check_addresses` of 100 addresses, each `calls` times in an open loop
 *    at 20 calls/s (spread over enough tokens to stay under 60 calls a minute each), p99 of call
 *    sent → result. Baseline: a bare SDK server (the same stateless transport on node:http) whose
 *    one tool answers a canned result, at the same rate.
 *  - request_energy → quote posted: `requests` requests, one every 1.2 s (one channel: Slack paces a
 *    channel at ~1 message/s, which a faster rate would measure instead), for new addresses; call sent → the
 *    quote's chat.postMessage in OPS_AGENT_CHANNEL at the fake Slack API, p99. Baseline: a bare
 *    chat.postMessage to the same fake API.
 */
const RATE_PER_S = 20;
const READ_TARGET_MS = 50;
const REQUEST_TARGET_MS = 300;
const CHANNEL = "C16AGENTS";
/** One request at a time into one channel, slower than Slack's ~1 message/s per channel pacing. */
const REQUEST_EVERY_MS = 1_200;
const token = (i: number) => `bench-agent-token-${i}-${"x".repeat(32)}`;

async function connect(origin: string, bearer: string): Promise<Client> {
  const client = new Client({ name: "bench-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}

/** `count` calls at RATE_PER_S (open loop), round-robin over `clients`; latencies in ms. */
async function openLoop(
  clients: readonly Client[],
  count: number,
  call: (client: Client, i: number) => Promise<unknown>,
): Promise<number[]> {
  const started = performance.now();
  const runs = Array.from({ length: count }, async (_, i) => {
    const due = started + (i * 1000) / RATE_PER_S;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const t0 = performance.now();
    const answer = (await call(clients[i % clients.length] as Client, i)) as { isError?: boolean };
    if (answer.isError) throw new Error(`call ${i} answered a tool error: ${JSON.stringify(answer)}`);
    return performance.now() - t0;
  });
  return Promise.all(runs);
}

/** A bare SDK server: the same stateless Streamable HTTP transport, one canned tool. */
async function startBareMcp(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const mcp = new McpServer({ name: "bare", version: "1.0.0" });
      mcp.registerTool("canned", { description: "canned" }, async () => ({
        content: [{ type: "text" as const, text: "ok" }],
        structuredContent: { ok: true },
      }));
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on("close", () => void transport.close());
      const raw = Buffer.concat(chunks).toString("utf8");
      void mcp
        .connect(transport)
        .then(() => transport.handleRequest(req, res, raw === "" ? undefined : JSON.parse(raw)))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function barePosts(world: World, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const t0 = performance.now();
    const res = await fetch(`${world.slack.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${FAKE_SLACK_BOT_TOKEN}` },
      body: JSON.stringify({ channel: CHANNEL, text: `baseline ${i}` }),
    });
    await res.arrayBuffer();
    out.push(performance.now() - t0);
  }
  return out;
}

export async function mcpAgentsFigure(world: World, calls: number, requests: number): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig16");
  const bare = await startBareMcp();
  // Each token stays under its 60 calls a minute: 2 reads × `calls`, 50 per token at most.
  const readers = Math.ceil((2 * calls) / 50) + 1;
  const askers = Math.ceil(requests / 50) + 1;
  const tokens = [
    ...Array.from({ length: readers }, (_, i) => `reader-${i}:read:${token(i)}`),
    ...Array.from({ length: askers }, (_, i) => `asker-${i}:request:${token(1000 + i)}`),
  ];
  const bot = await startBot(world, "fig16-mcp", sandbox.url, {
    OPS_AGENT_TOKENS: tokens.join(","),
    OPS_AGENT_CHANNEL: `slack:${CHANNEL}`,
  });
  const clients: Client[] = [];
  try {
    const bareClient = await connect(bare.origin, "none");
    clients.push(bareClient);
    const readClients = await Promise.all(
      Array.from({ length: readers }, (_, i) => connect(bot.origin, token(i))),
    );
    const askClients = await Promise.all(
      Array.from({ length: askers }, (_, i) => connect(bot.origin, token(1000 + i))),
    );
    clients.push(...readClients, ...askClients);
    const hundred = Array.from({ length: 100 }, (_, i) => tronAddress(`fig16-${i}`));
    // Warm-up: the price list and the balance read once, as on any running bot.
    await readClients[0]?.callTool({ name: "get_prices", arguments: {} });
    const bareReads = await openLoop([bareClient], calls, (c) =>
      c.callTool({ name: "canned", arguments: {} }),
    );
    const prices = await openLoop(readClients, calls, (c) =>
      c.callTool({ name: "get_prices", arguments: {} }),
    );
    const checks = await openLoop(readClients, calls, (c) =>
      c.callTool({ name: "check_addresses", arguments: { addresses: hundred } }),
    );
    const posted = await requestLatencies(world, askClients, requests);
    const baselinePosts = await barePosts(world, requests);
    return report(
      { bareReads, prices, checks, posted, baselinePosts },
      calls,
      requests,
      problemNote("the bot", bot.logFile),
    );
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    await bot.stop();
    await bare.close();
    await stop();
  }
}

/** request_energy every REQUEST_EVERY_MS for new addresses: call sent → its quote posted in the agents' channel. */
async function requestLatencies(world: World, clients: readonly Client[], count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const t0 = Date.now();
    const answer = (await clients[i % clients.length]?.callTool({
      name: "request_energy",
      arguments: { address: tronAddress(`fig16-ask-${i}`), amount: 65000, reason: "bench" },
    })) as { structuredContent?: { request_id?: string } };
    const id = answer.structuredContent?.request_id ?? "?";
    const deadline = Date.now() + 10_000;
    let at: number | undefined;
    while (at === undefined && Date.now() < deadline) {
      at = world.slack.calls("chat.postMessage").find((c) => JSON.stringify(c.params).includes(id))?.at;
      if (at === undefined) await new Promise((r) => setTimeout(r, 2));
    }
    if (at !== undefined) out.push(at - t0);
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + REQUEST_EVERY_MS - Date.now())));
  }
  return out;
}

interface Samples {
  bareReads: number[];
  prices: number[];
  checks: number[];
  posted: number[];
  baselinePosts: number[];
}

function report(s: Samples, calls: number, requests: number, problems: string | undefined): FigureResult {
  const p99 = (xs: number[]) => round(percentile(xs, 99), 1);
  const bareP99 = p99(s.bareReads);
  const postP99 = p99(s.baselinePosts);
  const read = (name: string, xs: number[]) => ({
    name: `${name} p99 at ${RATE_PER_S}/s`,
    value: p99(xs),
    unit: "ms",
    baseline: { name: "bare SDK server, canned tool", value: bareP99 },
    ratio: ratio(p99(xs), bareP99),
    targets: [
      { text: `≤ ${READ_TARGET_MS} ms`, met: p99(xs) === null ? null : (p99(xs) ?? 0) <= READ_TARGET_MS },
    ],
  });
  const notes = [
    `reads: ${calls} calls each at ${RATE_PER_S}/s (open loop) with the SDK's client over HTTP; check_addresses of 100 addresses (one batch call each)`,
    `request_energy: ${requests} requests, one every ${REQUEST_EVERY_MS} ms into one channel, ${s.posted.length} quotes seen at the fake Slack; baseline: a bare chat.postMessage to it, p99 ${postP99} ms`,
  ];
  if (problems) notes.push(problems);
  return {
    id: "16",
    title: "agents over MCP",
    measures: [
      read("get_prices", s.prices),
      read("check_addresses (100)", s.checks),
      {
        name: "request_energy → quote posted p99",
        value: p99(s.posted),
        unit: "ms",
        baseline: { name: "bare chat.postMessage", value: postP99 },
        ratio: ratio(p99(s.posted), postP99),
        targets: [
          {
            text: `≤ ${REQUEST_TARGET_MS} ms`,
            met: s.posted.length < requests ? false : (p99(s.posted) ?? 0) <= REQUEST_TARGET_MS,
          },
        ],
      },
    ],
    notes,
    details: { samples: s },
  };
}
