import { Redis } from "ioredis";
import { afterEach } from "vitest";
import type { LedgerEntry } from "../../src/core/ledger/entry.js";
import { readSince } from "../../src/core/ledger/ledger.js";
import { DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";
import { createRedisStore } from "../../src/store/redis-store.js";
import { buttonLabels, messageText } from "../adapters/slack/harness.js";
import {
  clickBody,
  commandBody,
  SIGNING_SECRET,
  type SlackUser,
  signedHeaders,
} from "../adapters/slack/payloads.js";
import { createFakeSlackApi, type FakeSlackApi, type FakeSlackMessage } from "../fakes/slack-api.js";
import { eventually, OPERATOR, SERVICE_API_KEY, SLACK_BOT_TOKEN } from "../support/app-world.js";
import { type ChildBot, startChildBot } from "../support/child-bot.js";
import { startPrivateRedis } from "../support/processes.js";

/**
 * The bot as a real child process (`node --import tsx src/main.ts`) around outside parts that
 * outlive it: a private redis-server, the sandbox service (its record of calls is "what the
 * service was asked") and the fake Slack Web API (what the channel shows). A test kills the bot
 * with SIGKILL at a step of a Confirm (OPSBOT_TEST_KILL_AT, or from outside while the sandbox is
 * still answering), starts another one on the same Redis, and reads what happened.
 */
export const CHANNEL = "C0OPS";
/** How soon a click's recovery job looks (default 30 s), so a test waits seconds, not minutes. */
const RECOVER_MS = "1500";

export interface FaultWorld {
  sandbox: Sandbox;
  slack: FakeSlackApi;
  redis: Redis;
  start(env?: Record<string, string>): Promise<ChildBot>;
  command(bot: ChildBot, line: string): Promise<Response>;
  click(bot: ChildBot, message: FakeSlackMessage, label: RegExp, user?: SlackUser): Promise<Response>;
  /** Runs `/energy <address> <amount>` and answers the message that carries its Confirm. */
  quote(bot: ChildBot, address: string, amount?: string): Promise<FakeSlackMessage>;
  /** Messages of the channel (not ephemeral) whose current text matches. */
  shown(pattern: RegExp): FakeSlackMessage[];
  /** The operator's total of the UTC day in SUN, as the bot keeps it in Redis. */
  spentSun(user?: SlackUser): Promise<number>;
  /** The spend ledger's entries of the last day, read with the ledger's readers. */
  ledger(): Promise<LedgerEntry[]>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

export async function createFaultWorld(
  options: { sandbox?: SandboxOptions; env?: Record<string, string> } = {},
) {
  const privateRedis = await startPrivateRedis();
  open.push(() => privateRedis.close());
  const redis = new Redis(privateRedis.url);
  open.push(async () => void (await redis.quit().catch(() => redis.disconnect())));
  const sandbox = await createSandbox({
    apiKey: SERVICE_API_KEY,
    enforceRateLimits: false,
    ...options.sandbox,
  });
  open.push(() => sandbox.close());
  const slack = await createFakeSlackApi({ token: SLACK_BOT_TOKEN });
  open.push(() => slack.close());
  const env: Record<string, string> = {
    SERVICE_BASE_URL: sandbox.url,
    SERVICE_API_KEY,
    SERVICE_REAL_IP: DEFAULT_REAL_IP,
    SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPS_OPERATORS: `slack:${OPERATOR.id}`,
    // Hold nothing for an address's activation (unset, a capped quote to a new address is refused).
    OPS_ACTIVATION_TRX: "0",
    REDIS_URL: privateRedis.url,
    OPSBOT_TEST_INTENT_RECOVER_MS: RECOVER_MS,
    LOG_LEVEL: "info",
    ...options.env,
  };
  const post = (bot: ChildBot, body: { raw: string; contentType: string }) =>
    fetch(`${bot.origin}/slack/events`, {
      method: "POST",
      headers: { "content-type": body.contentType, ...signedHeaders(body.raw) },
      body: body.raw,
    });
  const world: FaultWorld = {
    sandbox,
    slack,
    redis,
    start: (extra = {}) => startChildBot({ env: { ...env, ...extra }, readyWithinMs: 90_000 }),
    command(bot, line) {
      const responseUrl = slack.responseUrl({ channel: CHANNEL, user: OPERATOR.id });
      return post(
        bot,
        commandBody(line, { user: OPERATOR, channel: CHANNEL, responseUrl, team: slack.teamId }),
      );
    },
    click(bot, message, label, user = OPERATOR) {
      const responseUrl = slack.responseUrl({
        channel: message.channel,
        user: user.id,
        messageTs: message.ts,
      });
      return post(bot, clickBody(message, label, { user, responseUrl, team: slack.teamId }));
    },
    async quote(bot, address, amount = "65k") {
      const before = new Set(slack.channelMessages(CHANNEL).map((m) => m.ts));
      expect200(await world.command(bot, `/energy ${address} ${amount}`));
      const found = await eventually(
        () =>
          slack
            .channelMessages(CHANNEL)
            .find((m) => !before.has(m.ts) && buttonLabels(m).some((l) => /^Confirm/.test(l))),
        `the quote for ${address}`,
        15_000,
      );
      return structuredClone(found);
    },
    shown: (pattern) => slack.channelMessages(CHANNEL).filter((m) => pattern.test(messageText(m))),
    async spentSun(user = OPERATOR) {
      const day = new Date().toISOString().slice(0, 10);
      return Number((await redis.get(`opsbot:spend:slack:${user.id}:${day}`)) ?? "0");
    },
    ledger: () => readSince(createRedisStore({ redis, prefix: "opsbot:" }), Date.now(), 24 * 3_600_000),
  };
  return world;
}

function expect200(response: Response): void {
  if (response.status !== 200) throw new Error(`the bot answered HTTP ${response.status}`);
}
