import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import { type Bot, createWorld, eventually, OPERATOR, type World } from "../support/app-world.js";
import { callTool, textOf, useMcpAgents } from "../support/mcp-agent.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * An agent's request keeps its story (issue 44, findings 3 and 4): a few at most wait for a person
 * per agent, a re-quote after a price rise names the agent and its reason, a rise past a cap is
 * `refused` with its line, and an agent reads its own requests only. The SDK's client over real
 * HTTP, the sandbox behind the bot, the fake Slack as the agents' channel.
 */
const ASKER = `asker-token-${"a".repeat(32)}`;
const OTHER = `other-token-${"o".repeat(32)}`;
const AGENTS = "C0AGENTS";
const ENV = {
  OPS_AGENT_TOKENS: `ops-agent:request:${ASKER},other-agent:request:${OTHER}`,
  OPS_AGENT_CHANNEL: `slack:${AGENTS}`,
};

const agents = useMcpAgents("story-agent");
const agent = (bot: Pick<Bot, "origin">, token: string): Promise<Client> => agents.connect(bot.origin, token);

const agentQuotes = (world: World) =>
  world.slack.channelMessages(AGENTS).filter((m) => /Energy request from agent/.test(messageText(m)));

async function ask(client: Client, tag: string, reason = tag) {
  const answer = await callTool(client, "request_energy", {
    address: tronAddress(tag),
    amount: 65000,
    reason,
  });
  return { answer, id: String(answer.structuredContent?.request_id) };
}

describe("an agent's requests", () => {
  it("at most 3 await a person at once: the 4th is refused with the reason and nothing is posted", async () => {
    const world = await createWorld({ env: ENV });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const asked: Awaited<ReturnType<typeof ask>>[] = [];
    for (const n of [1, 2, 3]) asked.push(await ask(asker, `story-wait-${n}`));
    expect(asked.map((a) => a.answer.structuredContent?.status)).toEqual(
      Array(3).fill("awaiting_confirmation"),
    );
    await eventually(() => agentQuotes(world).length === 3, "three quotes posted");

    const fourth = await ask(asker, "story-wait-4");
    expect(fourth.answer.structuredContent?.status).toBe("refused");
    expect(textOf(fourth.answer)).toContain("at most 3 wait at once");
    for (const { id } of asked) expect(textOf(fourth.answer)).toContain(id);
    // Another agent has its own slots.
    const other = await ask(await agent(bot, OTHER), "story-other");
    expect(other.answer.structuredContent?.status).toBe("awaiting_confirmation");
    await eventually(() => agentQuotes(world).length === 4, "the other agent's quote posted");
    await quietPeriod(1_500);
    expect(agentQuotes(world)).toHaveLength(4);

    // One cancelled frees its slot.
    const first = agentQuotes(world).find((m) => messageText(m).includes(asked[0]!.id))!;
    await bot.click(structuredClone(first), "Cancel", { user: OPERATOR });
    await eventually(
      async () =>
        (await callTool(asker, "get_request", { request_id: asked[0]!.id })).structuredContent?.status ===
        "cancelled",
      "the first request cancelled",
    );
    expect((await ask(asker, "story-wait-5")).answer.structuredContent?.status).toBe("awaiting_confirmation");
  });

  it("a re-quote after a price rise names the agent and its reason; a rise past a cap reads refused with the line", async () => {
    // 65,000 energy is quoted 3.12 TRX in the sandbox; the rise makes it 4.615 TRX, above the cap.
    const world = await createWorld({ env: { ...ENV, OPS_MAX_ORDER_TRX: "4.5" } });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    const { id } = await ask(asker, "story-rise", "payouts at 14:00");
    const quote = structuredClone((await eventually(() => agentQuotes(world)[0], "the agent's quote"))!);
    world.sandbox.prices.raiseEnergy(23);
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const refusedInPlace = await eventually(
      () =>
        world.slack
          .channelMessages(AGENTS)
          .find((m) => m.ts === quote.ts && /The price rose by/.test(messageText(m))),
      "the rise in place of the quote",
    );
    expect(buttonLabels(refusedInPlace)).toEqual([]);
    expect(messageText(refusedInPlace)).toContain('Asked by agent ops-agent ("payouts at 14:00")');
    const read = await callTool(asker, "get_request", { request_id: id });
    expect(read.structuredContent).toEqual({ status: "refused" });
    expect(textOf(read)).toMatch(
      /refused, The price rose by .* OPS_MAX_ORDER_TRX|refused, .*The price rose by/,
    );
    expect(world.sandbox.calls("order5m.create")).toHaveLength(0);
  });

  it("a re-quote within the caps names the agent and its reason above its new Confirm", async () => {
    const world = await createWorld({ env: ENV });
    const bot = await world.start();
    const asker = await agent(bot, ASKER);
    await ask(asker, "story-requote", "hot wallet refill");
    const quote = structuredClone((await eventually(() => agentQuotes(world)[0], "the agent's quote"))!);
    world.sandbox.prices.raiseEnergy(23);
    await bot.click(quote, /^Confirm/, { user: OPERATOR });
    const again = await eventually(
      () =>
        world.slack
          .channelMessages(AGENTS)
          .find((m) => m.ts === quote.ts && /The price rose by/.test(messageText(m))),
      "the new quote in place",
    );
    expect(buttonLabels(again).some((l) => /^Confirm/.test(l))).toBe(true);
    expect(messageText(again)).toContain('Asked by agent ops-agent ("hot wallet refill")');
  });

  it("an agent reads only its own requests: another's is an unknown request", async () => {
    const world = await createWorld({ env: ENV });
    const bot = await world.start();
    const { id } = await ask(await agent(bot, ASKER), "story-own");
    const mine = await callTool(await agent(bot, ASKER), "get_request", { request_id: id });
    expect(mine.structuredContent).toEqual({ status: "awaiting_confirmation" });
    const theirs = await callTool(await agent(bot, OTHER), "get_request", { request_id: id });
    expect(theirs.isError).toBe(true);
    expect(textOf(theirs)).toBe(`No request ${id} is known (requests are kept 7 days).`);
    const never = await callTool(await agent(bot, OTHER), "get_request", { request_id: "Rnever" });
    expect(textOf(theirs)).toBe(textOf(never).replace("Rnever", id));
  });
});
