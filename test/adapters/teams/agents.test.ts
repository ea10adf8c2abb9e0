import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { createLogger } from "../../../src/log.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { type FakeMicrosoft, startFakeMicrosoft, TENANT } from "../../fakes/teams-microsoft.js";
import { callTool, useMcpAgents } from "../../support/mcp-agent.js";
import { CHANNEL, messageActivity, nextSequence, OPERATOR } from "./activities.js";
import { cardActions, cardOf } from "./harness.js";

/**
 * An agent's request_energy with OPS_AGENT_CHANNEL=teams:<channel>: the whole bot (`startApp`, the
 * built-in sandbox), the MCP SDK's client at `/mcp`, the fake Microsoft side. The quote is posted
 * to the Teams channel as an Adaptive Card; an operator's Confirm there places one order.
 */
const ASKER = `asker-token-${"a".repeat(32)}`;
const agents = useMcpAgents("teams-agent");
let app: App | undefined;
let fake: FakeMicrosoft | undefined;
afterEach(async () => {
  await app?.stop();
  await fake?.close();
  app = undefined;
  fake = undefined;
});

async function waitFor<T>(check: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("teams: the agents' channel", () => {
  it("request_energy posts its quote card to the Teams channel; an operator's Confirm there orders once", async () => {
    fake = await startFakeMicrosoft();
    const config = loadConfig({
      TEAMS_APP_ID: "0b0f1e2d-0000-4000-8000-0000000b0701",
      TEAMS_APP_PASSWORD: "teams-app-password-0123456789",
      TEAMS_TENANT_ID: TENANT,
      TEAMS_OPENID_URL: fake.openIdUrl,
      TEAMS_LOGIN_URL: fake.loginUrl,
      TEAMS_SERVICE_URLS: fake.url,
      PUBLIC_URL: "https://opsbot.test",
      OPS_OPERATORS: `teams:${OPERATOR.aadObjectId}`,
      OPS_AGENT_TOKENS: `ops-agent:request:${ASKER}`,
      OPS_AGENT_CHANNEL: `teams:${CHANNEL}`,
    });
    const logger = createLogger({ level: "warn", destination: { write: () => {} } });
    app = await startApp({ config: { ...config, port: 0 }, logger, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${app.port}`;
    const post = async (activity: Record<string, unknown>) =>
      fetch(`${url}/api/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${await (fake as FakeMicrosoft).sign({ serviceUrl: String(activity.serviceUrl) })}`,
        },
        body: JSON.stringify(activity),
      });
    // The bot learns where the channel is reached from a message there.
    expect((await post(messageActivity(fake, "help"))).status).toBe(200);
    const before = fake.activities.length;

    const address = tronAddress("teams-agent-request");
    const agent = await agents.connect(url, ASKER);
    const asked = await callTool(agent, "request_energy", {
      address,
      amount: "65k",
      reason: "hot wallet sweep",
    });
    expect(asked.structuredContent).toMatchObject({ status: "awaiting_confirmation" });

    const posted = await waitFor(
      () =>
        fake?.activities
          .slice(before)
          .find((a) => a.conversationId === CHANNEL && JSON.stringify(a.body).includes(address)),
      "the agent's quote in the Teams channel",
    );
    const card = cardOf(posted.body);
    expect(card).toMatchObject({ type: "AdaptiveCard", version: "1.5" });
    expect(JSON.stringify(card)).toMatch(/ops-agent/);
    expect(JSON.stringify(card)).toContain("hot wallet sweep");
    const confirm = cardActions(card).find((a) => a.title.startsWith("Confirm"));
    expect(confirm).toBeDefined();
    expect(app.sandbox?.calls("order5m.create")).toEqual([]);

    const press = () => {
      const base = messageActivity(fake as FakeMicrosoft, "");
      return post({
        ...base,
        conversation: { ...base.conversation, id: CHANNEL },
        type: "invoke",
        name: "adaptiveCard/action",
        id: `invoke-${nextSequence()}`,
        replyToId: posted.id,
        text: undefined,
        entities: undefined,
        value: { action: { type: "Action.Execute", verb: confirm?.verb, data: confirm?.data } },
      });
    };
    const answer = (await (await press()).json()) as { type: string; value: unknown };
    expect(answer.type).toBe("application/vnd.microsoft.card.adaptive");
    expect(cardActions(answer.value)).toEqual([]);
    await waitFor(() => (app?.sandbox?.calls("order5m.create").length === 1 ? true : undefined), "the order");
    // Pressed again: refused as a line; still one order.
    const again = (await (await press()).json()) as { type: string };
    expect(again.type).toBe("application/vnd.microsoft.activity.message");
    expect(app.sandbox?.calls("order5m.create")).toHaveLength(1);
  });
});
