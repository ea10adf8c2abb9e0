import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
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
 *    quote's chat.postMessage in OPS_AGENT_CHANNEL at the fake Slack API, p99. An agent may have at
 *    most AWAITING_PER_AGENT requests awaiting an operator (the rest are refused, nothing posted),
 *    and nobody confirms here, so the requests go round-robin over enough request tokens that
 *    none asks more than that: every request is one a person would see posted. Baseline: a
 *    bare SDK server whose tool posts the request id with chat.postMessage to the same fake API
 *    and answers, at the same pace: call sent → posted.
 */
const RATE_PER_S = 20;
const READ_TARGET_MS = 50;
const REQUEST_TARGET_MS = 300;
const CHANNEL = "C16AGENTS";
/** One request at a time into one channel, slower than Slack's ~1 message/s per channel pacing. */
const REQUEST_EVERY_MS = 1_200;
/** src/core/agents/awaiting-slots.ts: requests of one agent awaiting a person at once (beyond: refused). */
const AWAITING_PER_AGENT = 3;
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

/**
 * A bare SDK server: the same stateless Streamable HTTP transport, a canned tool, and a tool that
 * posts its argument to the fake Slack API before it answers (the floor of request → quote posted).
 */
async function startBareMcp(slackApiUrl: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const mcp = new McpServer({ name: "bare", version: "1.0.0" });
      mcp.registerTool("canned", { description: "canned" }, async () => ({
        content: [{ type: "text" as const, text: "ok" }],
        structuredContent: { ok: true },
      }));
      mcp.registerTool("post", { inputSchema: { id: z.string() } }, async ({ id }) => {
        await slackPost(slackApiUrl, `bare request ${id}`);
        return {
          content: [{ type: "text" as const, text: id }],
          structuredContent: { request_id: id, status: "posted" },
        };
      });
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

async function slackPost(apiUrl: string, text: string): Promise<void> {
  const res = await fetch(`${apiUrl}chat.postMessage`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${FAKE_SLACK_BOT_TOKEN}` },
    body: JSON.stringify({ channel: CHANNEL, text }),
  });
  await res.arrayBuffer();
}

export async function mcpAgentsFigure(world: World, calls: number, requests: number): Promise<FigureResult> {
  const { sandbox, stop } = await startSandbox("fig16");
  const bare = await startBareMcp(world.slack.apiUrl);
  // Each token stays under its 60 calls a minute: 2 reads × `calls`, 50 per token at most.
  const readers = Math.ceil((2 * calls) / 50) + 1;
  const askers = Math.ceil(requests / AWAITING_PER_AGENT);
  if (requests > askers * AWAITING_PER_AGENT) throw new Error("too few agents for the requests");
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
    const { posted, refused } = await requestLatencies(world, askClients, requests, (c, i) =>
      c.callTool({
        name: "request_energy",
        arguments: { address: tronAddress(`fig16-ask-${i}`), amount: 65000, reason: "bench" },
      }),
    );
    const baselinePosts = (
      await requestLatencies(world, [bareClient], requests, (c, i) =>
        c.callTool({ name: "post", arguments: { id: `bare-${i}-${randomBytes(4).toString("hex")}` } }),
      )
    ).posted;
    return report(
      { bareReads, prices, checks, posted, baselinePosts },
      { calls, requests, askers, refused },
      problemNote("the bot", bot.logFile),
    );
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    await bot.stop();
    await bare.close();
    await stop();
  }
}

/**
 * request_energy every REQUEST_EVERY_MS for new addresses, round-robin over `clients` (each asks at
 * most AWAITING_PER_AGENT): call sent → its quote posted in the agents' channel. A refused request
 * (status `refused`, or no request id) is counted, not waited for.
 */
async function requestLatencies(
  world: World,
  clients: readonly Client[],
  count: number,
  ask: (client: Client, i: number) => Promise<unknown>,
): Promise<{ posted: number[]; refused: string[] }> {
  const out: number[] = [];
  const refused: string[] = [];
  // Each post is read once (the fake keeps every call of the run: thousands by now, in this process).
  let scanned = world.slack.calls("chat.postMessage").length;
  const seen: { text: string; at: number }[] = [];
  const readNew = () => {
    const posts = world.slack.calls("chat.postMessage");
    for (; scanned < posts.length; scanned += 1) {
      const call = posts[scanned];
      if (call) seen.push({ text: JSON.stringify(call.params), at: call.at });
    }
  };
  for (let i = 0; i < count; i += 1) {
    readNew();
    const from = seen.length;
    const t0 = Date.now();
    const answer = (await ask(clients[i % clients.length] as Client, i)) as {
      structuredContent?: { request_id?: string; status?: string; refusal?: string; error?: string };
    };
    const { request_id: id, status, refusal, error } = answer.structuredContent ?? {};
    if (id === undefined || status === "refused") {
      refused.push(refusal ?? error ?? JSON.stringify(answer).slice(0, 200));
      continue;
    }
    const deadline = Date.now() + 10_000;
    let at: number | undefined;
    while (at === undefined && Date.now() < deadline) {
      readNew();
      at = seen.slice(from).find((p) => p.text.includes(id))?.at;
      if (at === undefined) await new Promise((r) => setTimeout(r, 2));
    }
    if (at !== undefined) out.push(at - t0);
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + REQUEST_EVERY_MS - Date.now())));
  }
  return { posted: out, refused };
}

interface Samples {
  bareReads: number[];
  prices: number[];
  checks: number[];
  posted: number[];
  baselinePosts: number[];
}

interface Sizes {
  calls: number;
  requests: number;
  askers: number;
  /** What the refused requests answered. */
  refused: readonly string[];
}

function report(s: Samples, n: Sizes, problems: string | undefined): FigureResult {
  const { calls, requests } = n;
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
    `request_energy: ${requests} requests, one every ${REQUEST_EVERY_MS} ms into one channel, round-robin over ${n.askers} agents (at most ${AWAITING_PER_AGENT} awaiting each, none confirmed), ${s.posted.length} quotes seen at the fake Slack, ${n.refused.length} refused${n.refused.length > 0 ? ` (first: ${n.refused[0]})` : ""}; posted p50 ${round(percentile(s.posted, 50), 1)} ms; baseline: a bare SDK server's tool that posts with chat.postMessage, call sent → posted, p50/p99 ${round(percentile(s.baselinePosts, 50), 1)}/${postP99} ms`,
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
        baseline: { name: "bare SDK tool that posts", value: postP99 },
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
