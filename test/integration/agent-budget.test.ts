import { afterEach, describe, expect, it } from "vitest";
import { readDay } from "../../src/core/ledger/ledger.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import { createWorld, eventually, OPERATOR } from "../support/app-world.js";
import { callTool, textOf, useMcpAgents } from "../support/mcp-agent.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * An agent's daily budget (OPS_AGENT_TOKENS' fourth field) across two instances and a restart:
 * its confirmed spend of the UTC day is what the ledger says it was charged plus what is held for
 * its confirmed requests; a request that would take it past the budget is refused with nothing
 * posted, and a Confirm that would is refused too. A person's own orders do not count against it.
 */
const ASKER = `asker-token-${"a".repeat(32)}`;
const AGENTS = "C0AGENTS";
const agents = useMcpAgents("budget-agent");
const redis = testRedis();
afterEach(() => redis.cleanup());

const quotesIn = (messages: readonly FakeSlackMessage[]) =>
  messages.filter((m) => /Energy request from agent/.test(messageText(m)));

describe("an agent's daily budget", () => {
  it("refuses what would pass it, at the request and at Confirm, the same on every instance and after a restart", async () => {
    const world = await createWorld({
      sandbox: { energy: { order5mLatencyMs: 5 } },
      redis: { url: redis.url, prefix: redis.prefix },
      // 5 TRX a day: one 65,000-energy order (2.5–4.3 TRX at any period) fits, two do not.
      env: { OPS_AGENT_TOKENS: `ops-agent:request:${ASKER}:5`, OPS_AGENT_CHANNEL: `slack:${AGENTS}` },
    });
    const [a, b] = [await world.start(), await world.start()];

    // A person's own order: not counted against the agent.
    await a.command(`energy ${tronAddress("budget-person")} 65k`);
    const own = await eventually(
      () => world.slack.channelMessages("C0OPS").find((m) => /Confirm/.test(JSON.stringify(m.blocks))),
      "the person's quote",
    );
    await a.click(own, /^Confirm/, { user: OPERATOR });
    await eventually(
      () => world.sandbox.calls("order5m.create").length === 1 || undefined,
      "the person's order",
    );

    const onA = await agents.connect(a.origin, ASKER);
    const onB = await agents.connect(b.origin, ASKER);
    const ask = (client: typeof onA, tag: string) =>
      callTool(client, "request_energy", {
        address: tronAddress(tag),
        amount: "65k",
        reason: `payouts ${tag}`,
      });
    const first = await ask(onA, "budget-1");
    const second = await ask(onB, "budget-2");
    expect(first.structuredContent).toMatchObject({ status: "awaiting_confirmation" });
    // Requests awaiting a Confirm hold nothing: the second fits too.
    expect(second.structuredContent).toMatchObject({ status: "awaiting_confirmation" });
    const quotes = await eventually(
      () =>
        quotesIn(world.slack.channelMessages(AGENTS)).length === 2
          ? quotesIn(world.slack.channelMessages(AGENTS))
          : undefined,
      "both quotes",
    );
    const quoteOf = (tag: string) =>
      structuredClone(quotes.find((m) => messageText(m).includes(tronAddress(tag)))!);

    await a.click(quoteOf("budget-1"), /^Confirm/, { user: OPERATOR });
    await eventually(
      () => world.sandbox.calls("order5m.create").length === 2 || undefined,
      "the first request's order",
    );
    // On the other instance, the second Confirm would take the agent past its budget: refused.
    await b.click(quoteOf("budget-2"), /^Confirm/, { user: OPERATOR });
    const refusal = await eventually(
      () =>
        world.slack
          .channelMessages(AGENTS)
          .map((m) => messageText(m))
          .find((t) => /agent ops-agent's daily limit of 5 TRX/.test(t)),
      "the refusal at Confirm",
    );
    expect(refusal).toMatch(/Not ordered: This request would cost [\d.]+ TRX, but only [\d.]+ TRX is left/);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(2);

    // A third request, on a restarted instance: refused at once, naming the limit; nothing posted.
    await a.stop();
    const c = await world.start();
    const onC = await agents.connect(c.origin, ASKER);
    const postedBefore = world.slack.channelMessages(AGENTS).length;
    const third = await ask(onC, "budget-3");
    expect(third.structuredContent).toMatchObject({ status: "refused" });
    expect(String(third.structuredContent?.refusal)).toMatch(
      /This request would cost [\d.]+ TRX, but only [\d.]+ TRX is left today of agent ops-agent's daily limit of 5 TRX \(OPS_AGENT_TOKENS/,
    );
    expect(textOf(third)).toMatch(/refused/i);
    await quietPeriod();
    expect(world.slack.channelMessages(AGENTS)).toHaveLength(postedBefore);

    // The ledger: the person's order, the agent's (confirmed by the operator), the refusal at Confirm.
    const day = await readDay(c.app.deps.store, new Date().toISOString().slice(0, 10));
    expect(day.map((e) => [e.kind, e.actor, e.requester, e.result])).toEqual([
      ["energy", `slack:${OPERATOR.id}`, `slack:${OPERATOR.id}`, "ordered"],
      ["energy", `slack:${OPERATOR.id}`, "agent:ops-agent", "ordered"],
      ["refusal", `slack:${OPERATOR.id}`, "agent:ops-agent", "refused"],
    ]);
    expect(day[1]?.amountSun).toBeGreaterThan(0);
  });
});
