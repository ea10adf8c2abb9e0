import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { eventually, OPERATOR } from "../support/app-world.js";
import type { ChildBot } from "../support/child-bot.js";
import { callTool as call, textOf, useMcpAgents } from "../support/mcp-agent.js";
import { exited } from "../support/processes.js";
import { quietPeriod } from "../webhooks/bot.js";
import { CHANNEL, createFaultWorld } from "./fault-world.js";

/**
 * SIGKILL during the order an operator confirmed for an agent's request (issue 36): the agent asks
 * over MCP with the SDK's own client, the quote is posted in the agents' channel (here the Slack
 * alert channel, the default), an operator presses Confirm, and the bot dies right after the
 * service answered the order, before anything was recorded. The next bot on the same Redis
 * carries the confirmation out: one order at the service, one outcome in the channel, and the
 * agent, asking the restarted bot, reads the request ordered (or delivered) with that order id.
 */
const TOKEN = `agent-fault-token-${"k".repeat(40)}`;
const AGENT_ENV = { OPS_AGENT_TOKENS: `ops-agent:request:${TOKEN}`, ALERT_SLACK_CHANNEL: CHANNEL };
const OUTCOME = /Energy delegated|Energy order \(already placed\)/;

const agents = useMcpAgents("fault-agent");
const agent = (bot: ChildBot): Promise<Client> => agents.connect(bot.origin, TOKEN);

describe("SIGKILL during an agent's confirmed request", () => {
  it("a kill during the confirmed request's order → carried out once", async () => {
    const world = await createFaultWorld({
      sandbox: { energy: { order5mLatencyMs: 20 } },
      env: AGENT_ENV,
    });
    const address = tronAddress(`fault-agent-${process.pid}`);
    const first = await world.start({ OPSBOT_TEST_KILL_AT: "after-answer" });
    const asked = await call(await agent(first), "request_energy", {
      address,
      amount: "65k",
      reason: "hot wallet payouts at 14:00",
    });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({ status: "awaiting_confirmation" });
    const id = String(asked.structuredContent?.request_id);

    const quote = structuredClone(
      await eventually(
        () => world.shown(/Energy request from agent ops-agent/).find((m) => buttonLabels(m).length > 0),
        "the agent's quote in the alert channel",
        15_000,
      ),
    );
    expect(messageText(quote)).toContain("hot wallet payouts at 14:00");
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);

    const died = exited(first.child);
    // The click may be cut off with the process: what matters is what happens afterwards.
    await world.click(first, quote, /^Confirm/).catch(() => undefined);
    expect((await died).signal).toBe("SIGKILL");
    // The dead bot had the service's answer (an order) and recorded nothing of it.
    expect(world.sandbox.calls("order5m.create").map((c) => c.status)).toEqual([200]);

    const second = await world.start(AGENT_ENV);
    await eventually(() => world.shown(OUTCOME).length > 0, "the outcome in the channel", 30_000);
    await quietPeriod(3_000);

    // One order at the service: the recovery asked again with the same key and got the first one.
    const orders = world.sandbox.energy.orders().filter((o) => o.receiveAddress === address);
    expect(orders).toHaveLength(1);
    const orderId = orders[0]!.orderId;
    const creates = world.sandbox.calls("order5m.create");
    expect(creates.map((c) => c.status)).toEqual([200, 208]);
    expect(new Set(creates.map((c) => c.headers["x-idempotency-key"])).size).toBe(1);

    // One outcome, in the quote's place, naming the order, the agent and who confirmed.
    const outcomes = world.shown(OUTCOME);
    expect(outcomes.map((m) => m.ts)).toEqual([quote.ts]);
    expect(messageText(outcomes[0])).toContain(orderId);
    expect(messageText(outcomes[0])).toMatch(/Asked by agent ops-agent/);
    expect(buttonLabels(outcomes[0])).toEqual([]);
    expect(world.slack.channelMessages(CHANNEL).filter((m) => m.threadTs === undefined)).toHaveLength(1);

    // The agent, asking the restarted bot, reads its request carried out with that order.
    const read = await call(await agent(second), "get_request", { request_id: id });
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({
      status: expect.stringMatching(/^(ordered|delivered)$/),
      order_id: orderId,
      paid_trx: expect.stringMatching(/^\d/),
      confirmed_by: `slack:${OPERATOR.id}`,
    });
    for (const bot of [first, second]) expect(bot.output()).not.toContain(TOKEN);
    // A kill between placing and recording: after the restart the ledger holds the order once.
    const entries = (await world.ledger()).filter((e) => e.address === address);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: "energy",
      result: "ordered",
      requester: "agent:ops-agent",
      orderIds: [orderId],
    });
  }, 300_000);
});
