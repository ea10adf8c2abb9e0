import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { messageText } from "../adapters/slack/harness.js";
import { commandBody, SIGNING_SECRET, signedHeaders } from "../adapters/slack/payloads.js";
import { createFakeSlackApi, FAKE_SLACK_BOT_TOKEN, type FakeSlackApi } from "../fakes/slack-api.js";
import { type ChildBot, startChildBot } from "../support/child-bot.js";
import { type PrivateRedis, startPrivateRedis } from "../support/processes.js";

/**
 * Graceful shutdown of the real program: `src/main.ts` in a child process on Redis, Slack and a
 * service of this test's own. SIGTERM while a command waits on the service: the bot stops taking
 * requests, the command is still answered, Redis is closed, and the process exits 0 within ~10 s.
 */
let redis: PrivateRedis | undefined;
let sandbox: Sandbox | undefined;
let slack: FakeSlackApi | undefined;
afterEach(async () => {
  await redis?.close();
  await sandbox?.close();
  await slack?.close();
  redis = sandbox = slack = undefined;
});

const USER = { id: "U0VIEW", name: "vic" };
const CHANNEL = "C0OPS";
const SERVICE_DELAY_MS = 2_000;

async function startBot(): Promise<ChildBot> {
  redis = await startPrivateRedis();
  sandbox = await createSandbox({ enforceRateLimits: false });
  slack = await createFakeSlackApi();
  return startChildBot({
    env: {
      REDIS_URL: redis.url,
      SERVICE_BASE_URL: sandbox.url,
      SERVICE_API_KEY: DEFAULT_API_KEY,
      SERVICE_REAL_IP: DEFAULT_REAL_IP,
      SLACK_BOT_TOKEN: FAKE_SLACK_BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      LOG_LEVEL: "info",
    },
  });
}

function balance(bot: ChildBot, fake: FakeSlackApi): Promise<Response> {
  const responseUrl = fake.responseUrl({ channel: CHANNEL, user: USER.id });
  const body = commandBody("/balance", { user: USER, channel: CHANNEL, responseUrl, team: fake.teamId });
  return fetch(`${bot.origin}/slack/events`, {
    method: "POST",
    headers: { "content-type": body.contentType, ...signedHeaders(body.raw) },
    body: body.raw,
  });
}

describe("graceful shutdown of the program", () => {
  it("on SIGTERM answers the command in flight, refuses new work, closes Redis and exits 0", async () => {
    const bot = await startBot();
    const service = sandbox!;
    const fake = slack!;
    service.inject("userinfo.get", { kind: "delay", ms: SERVICE_DELAY_MS }, 1);

    expect((await balance(bot, fake)).status).toBe(200);
    // The service has the call and has not answered it yet.
    const inFlight = await waitUntil(
      () => service.calls("userinfo.get")[0]?.status === 0,
      "the call in flight",
    );
    expect(inFlight).toBe(true);
    const exit = bot.signal("SIGTERM");
    // Stopped listening at once: a new connection is refused while the command finishes, which
    // has not been answered yet.
    await waitUntil(async () => await refused(bot.port), "new connections refused", 2_000);
    expect(service.calls("userinfo.get")[0]?.status).toBe(0);
    expect(answers(fake)).toEqual([]);
    expect(await exit).toBe(0);

    // Before it exited, the command in flight was answered, with what the service said.
    expect(service.calls("userinfo.get")).toHaveLength(1);
    expect(service.calls("userinfo.get")[0]?.status).toBe(200);
    expect(answers(fake)).toHaveLength(1);
    expect(messageText(answers(fake)[0])).toMatch(/Account balance[\s\S]*500 TRX/);
    const log = bot.output();
    expect(log).toContain('"msg":"stopping: finishing work in flight"');
    expect(log).toContain('"msg":"stopped"');
    // Every step of stopping finished, closing the Redis connections (QUIT) the last: none was
    // waited out to the end of the budget.
    expect(log).not.toContain("did not finish within the shutdown budget");
    expect(log).not.toContain("error while stopping");
  });

  it("on SIGINT with nothing in flight exits 0 at once", async () => {
    const bot = await startBot();
    expect(await bot.signal("SIGINT")).toBe(0);
    const log = bot.output();
    expect(log).toContain('"reason":"SIGINT"');
    expect(log).toContain('"msg":"stopped"');
    // Nothing to wait for: no step of stopping was waited out to the end of the budget.
    expect(log).not.toContain("did not finish within the shutdown budget");
    expect(log).not.toContain("error while stopping");
  });
});

/** What the bot answered the command: by its response_url or in the channel. */
const answers = (fake: FakeSlackApi) =>
  fake.allMessages().filter((m) => m.via === "response_url" || m.channel === CHANNEL);

/** True when a new TCP connection to the bot's port is refused (nothing listens any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
