import { afterEach, describe, expect, it } from "vitest";
import { type App, startApp } from "../../../src/app.js";
import { loadConfig } from "../../../src/config/load-config.js";
import { createLogger } from "../../../src/log.js";
import { tronAddress } from "../../../src/sandbox/families/energy/common.js";
import { createFakeSlackApi, FAKE_SLACK_BOT_TOKEN, type FakeSlackApi } from "../../fakes/slack-api.js";
import { buttonLabels, messageText, OPERATOR, waitFor } from "./harness.js";
import { CHANNEL, clickBody, commandBody, SIGNING_SECRET, type Signed, signedHeaders } from "./payloads.js";

/**
 * The whole bot as `npm start` runs it with Slack configured: `startApp` with a Config from
 * `loadConfig`, the built-in sandbox, and the fake Slack Web API as SLACK_API_URL.
 */
let app: App | undefined;
let fake: FakeSlackApi | undefined;
afterEach(async () => {
  await app?.stop();
  await fake?.close();
  app = undefined;
  fake = undefined;
});

async function startBot(env: Record<string, string> = {}) {
  fake = await createFakeSlackApi();
  const logs: string[] = [];
  const config = loadConfig({
    SLACK_BOT_TOKEN: FAKE_SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    SLACK_TEAM_ID: fake.teamId,
    OPS_OPERATORS: `slack:${OPERATOR.id}`,
    LOG_LEVEL: "debug",
    ...env,
  });
  // No `secrets`: the adapter itself must keep the token and the signing secret out of the log.
  const logger = createLogger({
    level: "debug",
    destination: { write: (line: string) => void logs.push(line) },
  });
  app = await startApp({ config: { ...config, port: 0 }, logger });
  return { app, fake, url: `http://127.0.0.1:${app.port}`, logs };
}

function signed(url: string, body: Signed, signature?: string) {
  const headers = signedHeaders(body.raw);
  if (signature !== undefined) headers["x-slack-signature"] = signature;
  return fetch(`${url}/slack/events`, {
    method: "POST",
    headers: { "content-type": body.contentType, ...headers },
    body: body.raw,
  });
}

function command(
  url: string,
  f: FakeSlackApi,
  line: string,
  options: { signature?: string; team?: string } = {},
) {
  const responseUrl = f.responseUrl({ channel: CHANNEL, user: OPERATOR.id });
  const body = commandBody(line, { user: OPERATOR, responseUrl, team: options.team ?? f.teamId });
  return signed(url, body, options.signature);
}

describe("slack in the app (startApp)", () => {
  it("is ready at start (token checked), serves /slack/events on PORT, and /healthz says so", async () => {
    const { fake, url } = await startBot();
    expect(fake.calls("auth.test")).toHaveLength(1);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { parts: Record<string, boolean> }).parts.slack).toBe(true);

    expect((await command(url, fake, "/help", { signature: `v0=${"ab".repeat(32)}` })).status).toBe(401);
    expect((await command(url, fake, "/help")).status).toBe(200);
    const answer = await waitFor(() => fake.channelMessages(CHANNEL)[0], "the help answer");
    expect(messageText(answer)).toContain("What I can do");
  });

  it("energy: quote → Confirm → one order; the delivery webhook later posts into the same channel", async () => {
    const { app, fake, url, logs } = await startBot();
    const sandbox = app.sandbox;
    if (!sandbox) throw new Error("the demo sandbox did not start");
    const address = tronAddress(`slack-app-${process.pid}`);

    expect((await command(url, fake, `/energy ${address} 65k`)).status).toBe(200);
    const quote = structuredClone(
      await waitFor(() => fake.channelMessages(CHANNEL).find((m) => buttonLabels(m).length > 0), "the quote"),
    );
    const responseUrl = fake.responseUrl({ channel: CHANNEL, user: OPERATOR.id, messageTs: quote.ts });
    const click = clickBody(quote, /^Confirm/, { user: OPERATOR, responseUrl });
    expect((await signed(url, click)).status).toBe(200);

    await waitFor(
      () => fake.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits === 1),
      "the update",
    );
    expect(sandbox.calls("order5m.create")).toHaveLength(1);
    expect(buttonLabels(fake.channelMessages(CHANNEL).find((m) => m.ts === quote.ts))).toEqual([]);
    const delivered = await waitFor(
      () =>
        fake
          .channelMessages(CHANNEL)
          .find((m) => m.via === "chat.postMessage" && /deliver/i.test(messageText(m))),
      "the delivery notification",
      10_000,
    );
    expect(messageText(delivered)).toContain(address.slice(0, 8));
    const all = logs.join("\n");
    expect(all).not.toContain(FAKE_SLACK_BOT_TOKEN);
    expect(all).not.toContain(SIGNING_SECRET);
  });

  it("refuses another workspace when SLACK_TEAM_ID is set", async () => {
    const { fake, url, app } = await startBot();
    expect((await command(url, fake, "/balance", { team: "T0SOMEONEELSE" })).status).toBe(403);
    await app.drain(1_000);
    expect(app.sandbox?.calls("userinfo.get")).toEqual([]);
    expect(fake.calls().filter((c) => c.method !== "auth.test")).toEqual([]);
  });
});
