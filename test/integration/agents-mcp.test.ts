import { PassThrough } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { startApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load-config.js";
import { readAudit } from "../../src/core/audit-log.js";
import { createLogger } from "../../src/log.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import {
  ADMIN,
  type Bot,
  createWorld,
  eventually,
  OPERATOR,
  TG_CHAT,
  type World,
} from "../support/app-world.js";
import { callTool, type ToolAnswer, textOf, useMcpAgents } from "../support/mcp-agent.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * Agents over MCP as an agent sees them: the SDK's own client over real HTTP against the bot, the
 * sandbox of the service behind it, and operators confirming in the fake Slack or Telegram.
 */
const READER = `reader-token-${"r".repeat(32)}`;
const ASKER = `asker-token-${"a".repeat(32)}`;
const AGENT_ENV = { OPS_AGENT_TOKENS: `triage:read:${READER},ops-agent:request:${ASKER}` };
const AGENTS = "C0AGENTS";

const agents = useMcpAgents("test-agent");
const agent = (bot: Pick<Bot, "origin">, token: string): Promise<Client> => agents.connect(bot.origin, token);

/** Tool calls made so far (each counts toward its token's 60 a minute). */
let callsMade = 0;
const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> => {
  callsMade += 1;
  return callTool(client, name, args);
};

async function registerWebhooks(bot: Bot): Promise<void> {
  await bot.app.core.handle({
    kind: "command",
    actor: { platform: "slack", userId: ADMIN.id },
    conversation: { platform: "slack", id: "C0ADMIN" },
    text: "setup webhooks",
  });
}

async function slackQuote(world: World) {
  return structuredClone(
    await eventually(
      () => world.slack.channelMessages(AGENTS).find((m) => /Energy request from agent/.test(messageText(m))),
      "the agent's quote in the agents' channel",
    ),
  );
}

describe("agents over MCP (Slack)", () => {
  it("lists the six tools, reads, and a request confirmed by an operator is ordered once and followed to delivered", async () => {
    const world = await createWorld({
      sandbox: { energy: { order5mLatencyMs: 5, webhookDelayMs: 5 } },
      env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` },
    });
    const bot = await world.start();
    await registerWebhooks(bot);
    const reader = await agent(bot, READER);
    const tools = (await reader.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(
      ["check_addresses", "get_balance", "get_prices", "get_request", "list_alerts", "request_energy"].sort(),
    );

    const prices = await call(reader, "get_prices");
    const services = prices.structuredContent?.services as {
      service: string;
      current: { price_sun: number };
    }[];
    expect(services.map((s) => s.service)).toEqual(["energy_5m", "energy_1h"]);
    expect(services[0]?.current.price_sun).toBeGreaterThan(0);
    expect(textOf(prices)).toMatch(/energy_5m: \d+ SUN per energy now/);

    const balance = await call(reader, "get_balance");
    expect(balance.structuredContent?.balance_trx).toMatch(/^\d+(\.\d+)?$/);
    expect(textOf(balance)).toMatch(/^Balance: /);

    const blocked = tronAddress("agent-blocked");
    world.sandbox.screening.addToList("aml_risk", blocked);
    const addresses = [blocked, ...Array.from({ length: 999 }, (_, i) => tronAddress(`agent-clean-${i}`))];
    const tooMany = await call(reader, "check_addresses", {
      addresses: [...addresses, tronAddress("one-more")],
    });
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toMatch(/<=1000/);
    const checked = await call(reader, "check_addresses", { addresses });
    expect(checked.isError, textOf(checked)).toBeFalsy();
    const results = checked.structuredContent?.results as {
      address: string;
      blocked: boolean;
      category: string;
    }[];
    expect(results).toHaveLength(1000);
    expect(results[0]).toMatchObject({ address: blocked, blocked: true, category: "aml_risk" });
    expect(results.filter((r) => r.blocked)).toHaveLength(1);
    expect(world.sandbox.calls("compliance.batch")).toHaveLength(1);

    const alerts = await call(reader, "list_alerts");
    expect(alerts.structuredContent).toEqual({ alerts: [] });

    const asker = await agent(bot, ASKER);
    const address = tronAddress("agent-slack");
    const asked = await call(asker, "request_energy", {
      address,
      amount: "65k",
      reason: "hot wallet payouts at 14:00",
    });
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({
      status: "awaiting_confirmation",
      quote_trx: expect.any(String),
    });
    const id = String(asked.structuredContent?.request_id);

    const quote = await slackQuote(world);
    expect(messageText(quote)).toContain("Energy request from agent ops-agent");
    expect(messageText(quote)).toContain("hot wallet payouts at 14:00");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
    expect((await call(asker, "get_request", { request_id: id })).structuredContent).toEqual({
      status: "awaiting_confirmation",
    });

    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const placed = await eventually(
      () => world.slack.channelMessages(AGENTS).find((m) => /Energy delegated/.test(messageText(m))),
      "the order in place of the quote",
    );
    expect(messageText(placed)).toMatch(
      /Confirmed by [\s\S]*Asked by agent ops-agent \("hot wallet payouts at 14:00"\)/,
    );
    // The delivery notice is posted in the order's thread; the agent then reads delivered.
    await eventually(
      () =>
        world.slack
          .channelMessages(AGENTS)
          .find((m) => /Energy delivered|delivery confirmed/i.test(messageText(m))),
      "the delivery notice",
    );
    // The asking agent reads it (another agent's token would get "unknown request": agents-story.test.ts).
    const delivered = (await call(asker, "get_request", { request_id: id })).structuredContent;
    expect(delivered).toMatchObject({
      status: "delivered",
      order_id: expect.any(String),
      paid_trx: expect.stringMatching(/^\d/),
      confirmed_by: expect.stringMatching(/olga|U0OPER/),
    });
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);

    const audit = await readAudit(bot.app.deps.store, 50);
    const byAgents = audit.filter((e) => e.actor.startsWith("agent:")).map((e) => `${e.actor} ${e.verb}`);
    expect(byAgents).toEqual(
      expect.arrayContaining([
        "agent:triage mcp get_prices",
        "agent:triage mcp get_balance",
        "agent:triage mcp check_addresses",
        "agent:triage mcp list_alerts",
        "agent:ops-agent mcp request_energy",
        "agent:ops-agent mcp get_request",
      ]),
    );
    const order = audit.find((e) => e.verb === "energy" && e.result === "ok");
    expect(order).toMatchObject({ actor: `slack:${OPERATOR.id}`, requester: "agent:ops-agent" });
    const digest = await bot.app.core.handle({
      kind: "command",
      actor: { platform: "slack", userId: OPERATOR.id },
      conversation: { platform: "slack", id: "C0OPS" },
      text: "digest",
    });
    expect(JSON.stringify(digest.blocks)).toMatch(/Agents' requests.*1 posted; 1 ordered for [\d.]+ TRX/);
    const help = await bot.app.core.handle({
      kind: "command",
      actor: { platform: "slack", userId: OPERATOR.id },
      conversation: { platform: "slack", id: "C0OPS" },
      text: "help",
    });
    expect(JSON.stringify(help.blocks)).toMatch(/Agents' requests: .*An operator confirms or cancels it/);
  });

  it("a missing or unknown bearer token gets 401 and nothing is done; a read token cannot ask for energy", async () => {
    const world = await createWorld({ env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` } });
    const bot = await world.start();
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "request_energy",
        arguments: { address: tronAddress("x"), amount: 65000, reason: "r" },
      },
    };
    for (const authorization of [undefined, "Bearer ", `Bearer ${READER}x`, `Basic ${ASKER}`, ASKER]) {
      const res = await fetch(`${bot.origin}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization !== undefined && { authorization }),
        },
        body: JSON.stringify(initialize),
      });
      expect(res.status, String(authorization)).toBe(401);
    }
    await expect(agent(bot, "not-a-token-at-all-but-long-enough-xxxx")).rejects.toThrow();
    expect(bot.logs.join("\n")).not.toContain(ASKER);
    expect(bot.logs.join("\n")).not.toContain(READER);

    const reader = await agent(bot, READER);
    const refused = await call(reader, "request_energy", {
      address: tronAddress("agent-read-scope"),
      amount: 65000,
      reason: "try",
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/needs the scope request/);
    await quietPeriod(300);
    expect(world.slack.channelMessages(AGENTS)).toEqual([]);
    expect(world.sandbox.calls("compliance.check")).toHaveLength(0);
  });

  it("/mcp answers 404 when OPS_AGENT_TOKENS is unset", async () => {
    const world = await createWorld();
    const bot = await world.start();
    const res = await fetch(`${bot.origin}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ASKER}` },
      body: "{}",
    });
    expect(res.status).toBe(404);
  });

  it("a request refused by the preflight posts nothing; one whose address is denied before the Confirm orders nothing", async () => {
    const world = await createWorld({ env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` } });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const tooSmall = await call(asker, "request_energy", {
      address: tronAddress("a1"),
      amount: 5,
      reason: "r",
    });
    expect(tooSmall.structuredContent).toMatchObject({
      status: "refused",
      refusal: expect.stringMatching(/energy/),
    });
    const listed = tronAddress("agent-listed");
    world.sandbox.screening.addToList("aml_risk", listed);
    const denied = await call(asker, "request_energy", { address: listed, amount: 65000, reason: "r" });
    expect(denied.structuredContent).toMatchObject({ status: "refused" });
    expect(world.slack.channelMessages(AGENTS)).toEqual([]);

    const later = tronAddress("agent-denied-later");
    const asked = await call(asker, "request_energy", { address: later, amount: 65000, reason: "payout" });
    const id = String(asked.structuredContent?.request_id);
    const quote = await slackQuote(world);
    world.sandbox.screening.addToList("aml_risk", later);
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    await eventually(async () => {
      const answer = await call(asker, "get_request", { request_id: id });
      return answer.structuredContent?.status === "refused";
    }, "the request refused at Confirm");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
  });

  it("a reason is one line of plain text: a line break, a control character or a blank reason is refused, nothing posted", async () => {
    const world = await createWorld({ env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` } });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const address = tronAddress("agent-forged-reason");
    for (const reason of [
      "payout\n✅ Approved by U0ADMIN001 — safe to Confirm",
      "payout\u2028✅ Approved",
      "payout \u202Eedoc",
      "   ",
    ]) {
      const answer = await call(asker, "request_energy", { address, amount: 65000, reason });
      expect(answer.structuredContent).toMatchObject({
        status: "refused",
        refusal: expect.stringMatching(/one line of plain text|A reason is needed/),
      });
    }
    expect(world.slack.channelMessages(AGENTS)).toEqual([]);
    expect(world.sandbox.calls("pricing.get")).toEqual([]);

    await call(asker, "request_energy", { address, amount: 65000, reason: `  customer's "weekly" payout ` });
    const quote = await slackQuote(world);
    expect(messageText(quote)).toContain(`Reason given by the agent: "customer's "weekly" payout"`);
  });

  it("a request at or above OPS_APPROVAL_TRX needs a second person after the Confirm", async () => {
    const world = await createWorld({
      env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}`, OPS_APPROVAL_TRX: "1" },
    });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const asked = await call(asker, "request_energy", {
      address: tronAddress("agent-big"),
      amount: 65000,
      reason: "big",
    });
    const id = String(asked.structuredContent?.request_id);
    const quote = await slackQuote(world);
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const request = structuredClone(
      await eventually(
        () =>
          world.slack
            .channelMessages(AGENTS)
            .find((m) => m.ts === quote.ts && /Approval needed/.test(messageText(m))),
        "the approval request",
      ),
    );
    expect((await call(asker, "get_request", { request_id: id })).structuredContent).toMatchObject({
      status: "approval_pending",
    });
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
    await bot.click(request, "Approve", { user: ADMIN });
    await eventually(async () => {
      const answer = await call(asker, "get_request", { request_id: id });
      return answer.structuredContent?.status === "ordered";
    }, "the request ordered after the approval");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a price rise at Confirm: the new quote in place follows the request, and its Confirm orders it for the agent", async () => {
    const world = await createWorld({ env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` } });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const asked = await call(asker, "request_energy", {
      address: tronAddress("agent-rise"),
      amount: 65000,
      reason: "rise",
    });
    const id = String(asked.structuredContent?.request_id);
    const quote = await slackQuote(world);
    world.sandbox.prices.raiseEnergy(23);
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const again = structuredClone(
      await eventually(
        () =>
          world.slack
            .channelMessages(AGENTS)
            .find((m) => m.ts === quote.ts && /The price rose by/.test(messageText(m))),
        "the new quote in place",
      ),
    );
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
    expect((await call(asker, "get_request", { request_id: id })).structuredContent).toEqual({
      status: "awaiting_confirmation",
    });
    await bot.click(again, /^Confirm/, { user: OPERATOR });
    await eventually(async () => {
      const answer = await call(asker, "get_request", { request_id: id });
      return /ordered|delivered/.test(String(answer.structuredContent?.status));
    }, "the request ordered at the new quote");
    const placed = await eventually(
      () =>
        world.slack
          .channelMessages(AGENTS)
          .find((m) => m.ts === quote.ts && /Energy delegated/.test(messageText(m))),
      "the order in place of the quote",
    );
    expect(messageText(placed)).toContain('Asked by agent ops-agent ("rise")');
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("Cancel by an operator: the agent reads cancelled, nothing is ordered", async () => {
    const world = await createWorld({ env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` } });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const asked = await call(asker, "request_energy", {
      address: tronAddress("agent-cancel"),
      amount: 65000,
      reason: "r",
    });
    const quote = await slackQuote(world);
    await bot.click(quote, "Cancel", { user: OPERATOR });
    await eventually(async () => {
      const answer = await call(asker, "get_request", {
        request_id: String(asked.structuredContent?.request_id),
      });
      return answer.structuredContent?.status === "cancelled";
    }, "the request cancelled");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
  });
});

describe("agents over MCP (Telegram)", () => {
  it("a request posted in the Telegram chat and confirmed there is ordered once", async () => {
    const world = await createWorld({
      telegram: true,
      env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `telegram:${TG_CHAT}` },
    });
    const bot = await world.start();
    const tg = world.telegram!;
    const asker = await agent(bot, ASKER);
    const asked = await call(asker, "request_energy", {
      address: tronAddress("agent-tg"),
      amount: 65000,
      reason: "tg",
    });
    const quote = await eventually(
      () =>
        tg
          .messages(TG_CHAT)
          .find((m) => /Energy request from agent ops-agent/.test(m.text) && m.replyMarkup !== undefined),
      "the quote in the Telegram chat",
    );
    await bot.tap(quote, /Confirm/);
    await eventually(async () => {
      const answer = await call(asker, "get_request", {
        request_id: String(asked.structuredContent?.request_id),
      });
      return answer.structuredContent?.status === "ordered";
    }, "the request ordered");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("agents over MCP (two instances)", () => {
  const redis = testRedis();
  afterEach(() => redis.cleanup());

  it("one agent on two instances: Confirm clicked on both orders once, and the 60 calls a minute are counted together", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      env: { ...AGENT_ENV, OPS_AGENT_CHANNEL: `slack:${AGENTS}` },
    });
    const [a, b] = [await world.start(), await world.start()];
    const [onA, onB] = [await agent(a, ASKER), await agent(b, ASKER)];
    callsMade = 0;
    const asked = await call(onA, "request_energy", {
      address: tronAddress("agent-two"),
      amount: 65000,
      reason: "two",
    });
    const id = String(asked.structuredContent?.request_id);
    const quote = await slackQuote(world);
    const clicks = await Promise.all([
      a.click(quote, /^Confirm/, { user: OPERATOR, actionTs: "1700000003.000100" }),
      b.click(quote, /^Confirm/, { user: ADMIN, actionTs: "1700000003.000200" }),
    ]);
    expect(clicks.map((r) => r.status)).toEqual([200, 200]);
    await eventually(async () => {
      const answer = await call(onB, "get_request", { request_id: id });
      return answer.structuredContent?.status === "ordered";
    }, "the request ordered, seen from the other instance");
    await quietPeriod(300);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);

    // 60 calls fit in the minute, split over both instances; the 61st is refused.
    while (callsMade < 60) {
      const answer = await call(callsMade % 2 === 0 ? onA : onB, "get_request", { request_id: id });
      expect(answer.isError, `call ${callsMade}`).toBeFalsy();
    }
    const over = await call(onB, "get_prices");
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/at most 60 calls a minute per token/);
  });
});

describe("agents over MCP (console)", () => {
  it("the console demo posts an agent's request in its own conversation; the numbered Confirm orders it", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let printed = "";
    stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const app = await startApp({
      config: { ...loadConfig(AGENT_ENV), port: 0 },
      logger: createLogger({ level: "silent" }),
      stdin,
      stdout,
      host: "127.0.0.1",
    });
    try {
      const asker = await agent({ origin: `http://127.0.0.1:${app.port}` }, ASKER);
      const asked = await call(asker, "request_energy", {
        address: tronAddress("agent-console"),
        amount: 65000,
        reason: "console demo",
      });
      expect(asked.structuredContent).toMatchObject({ status: "awaiting_confirmation" });
      await eventually(() => /\[1\] Confirm/.test(printed), "the quote with numbered buttons on the console");
      expect(printed).toContain("Energy request from agent ops-agent");
      expect(printed).toContain("console demo");
      stdin.write("1\n");
      await eventually(() => printed.includes("Energy delegated"), "the order on the console");
      expect(app.sandbox?.calls("order5m.create")).toHaveLength(1);
      const answer = await call(asker, "get_request", {
        request_id: String(asked.structuredContent?.request_id),
      });
      expect(answer.structuredContent).toMatchObject({ status: expect.stringMatching(/ordered|delivered/) });
    } finally {
      await app.stop();
    }
  });
});
