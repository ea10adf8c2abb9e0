import { spawn } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createWorld } from "../support/app-world.js";

/**
 * The official MCP conformance suite against the bot's `/mcp`, as a separate program: the pinned
 * `@modelcontextprotocol/conformance` run by npx on a Node 22 fetched from the npm registry (it
 * needs Node 22 or later; the machines' Node is 20). The suite sends no credentials, so it talks
 * to a pass-through proxy that adds an agent's bearer token and leaves every other header (Origin,
 * Host) as the suite sent it. The applicable scenarios must pass: initialize, ping, tools-list,
 * tool calls and tool errors, DNS rebinding (a foreign Origin refused, a localhost one served);
 * the rest are the baseline's expected failures (test/fixtures/mcp-conformance-baseline.yml).
 */
const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const NODE = "node@22";
const BASELINE = fileURLToPath(new URL("../fixtures/mcp-conformance-baseline.yml", import.meta.url));
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-error",
  "dns-rebinding-protection",
];
const TOKEN = `conformance-token-${"c".repeat(32)}`;

let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  proxy = undefined;
});

/** Forwards to `target` with the agent's token added; answers the port it listens on. */
async function tokenProxy(target: URL): Promise<number> {
  proxy = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${TOKEN}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy?.listen(0, "127.0.0.1", resolve));
  return (proxy.address() as AddressInfo).port;
}

function runSuite(url: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "npx",
      [
        "-y",
        "-p",
        NODE,
        "-p",
        CONFORMANCE,
        "conformance",
        "server",
        "--url",
        url,
        "--expected-failures",
        BASELINE,
      ],
      { env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the MCP conformance suite", () => {
  it("passes initialize, ping, tools-list, tool calls, tool errors and DNS rebinding against /mcp", {
    timeout: 240_000,
  }, async () => {
    // PUBLIC_URL unset: the loopback origins are the ones served, as the suite's localhost check expects.
    const world = await createWorld({
      env: { OPS_AGENT_TOKENS: `conformance:read:${TOKEN}`, PUBLIC_URL: "" },
    });
    const bot = await world.start();
    const port = await tokenProxy(new URL(bot.origin));
    const { code, output } = await runSuite(`http://localhost:${port}/mcp`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output with ANSI escapes
    const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
    for (const scenario of APPLICABLE)
      expect(plain, scenario).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    expect(plain).toMatch(/Baseline check passed/);
    expect(code, plain.slice(-2_000)).toBe(0);
  });
});
