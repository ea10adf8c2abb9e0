import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { createWorld } from "../support/app-world.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * The MCP transport's Origin rule (CONTRACT.md, "Agents"; the spec's DNS rebinding protection):
 * with a valid `request` token, a foreign or `null` Origin is 403 and nothing is posted or asked
 * of the service; PUBLIC_URL's own origin and no Origin at all are served. Without PUBLIC_URL,
 * the loopback names on any port are the only origins served.
 */
const ASKER = `asker-token-${"a".repeat(32)}`;
const AGENTS = "C0AGENTS";
const ENV = { OPS_AGENT_TOKENS: `ops-agent:request:${ASKER}`, OPS_AGENT_CHANNEL: `slack:${AGENTS}` };

const requestEnergy = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: {
    name: "request_energy",
    arguments: { address: tronAddress("origin-test"), amount: 65000, reason: "rebinding attempt" },
  },
};

function post(origin: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${origin}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe("/mcp and the Origin header", () => {
  it("with PUBLIC_URL: a foreign or null Origin gets 403 and no effect; its own origin and none are served", async () => {
    const world = await createWorld({ env: ENV });
    const bot = await world.start();
    const foreign = [
      "https://evil.example",
      "null",
      "https://opsbot.test.evil.example",
      "http://opsbot.test",
      "https://opsbot.test:8443",
      "http://localhost:3000",
      "not a url",
      "https://opsbot.test/path",
    ];
    for (const origin of foreign) {
      const res = await post(bot.origin, requestEnergy, { authorization: `Bearer ${ASKER}`, origin });
      expect(res.status, origin).toBe(403);
      expect(await res.text()).not.toContain("request_id");
    }
    const unknownToken = await post(bot.origin, requestEnergy, {
      authorization: `Bearer ${"u".repeat(40)}`,
      origin: "https://evil.example",
    });
    expect([401, 403]).toContain(unknownToken.status);
    await quietPeriod(300);
    expect(world.slack.channelMessages(AGENTS)).toEqual([]);
    expect(world.sandbox.calls("compliance.check")).toHaveLength(0);

    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const own = await post(bot.origin, list, {
      authorization: `Bearer ${ASKER}`,
      origin: "https://opsbot.test",
    });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("request_energy");
    const none = await post(bot.origin, list, { authorization: `Bearer ${ASKER}` });
    expect(none.status).toBe(200);
  });

  it("without PUBLIC_URL: the loopback names on any port are served, anything else is 403", async () => {
    const world = await createWorld({ env: { ...ENV, PUBLIC_URL: "" } });
    const bot = await world.start();
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    for (const origin of [
      "http://localhost:5173",
      "http://127.0.0.1:1",
      "http://[::1]:8080",
      "http://localhost",
    ]) {
      const res = await post(bot.origin, list, { authorization: `Bearer ${ASKER}`, origin });
      expect(res.status, origin).toBe(200);
    }
    for (const origin of ["https://localhost", "http://localhost.evil.example", "http://10.0.0.5", "null"]) {
      const res = await post(bot.origin, requestEnergy, { authorization: `Bearer ${ASKER}`, origin });
      expect(res.status, origin).toBe(403);
    }
    await quietPeriod(300);
    expect(world.slack.channelMessages(AGENTS)).toEqual([]);
  });
});
