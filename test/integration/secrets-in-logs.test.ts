import { afterEach, describe, expect, it } from "vitest";
import { storedWebhookSecrets } from "../../src/core/setup/webhook-secrets.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { buttonLabels } from "../adapters/slack/harness.js";
import { SIGNING_SECRET } from "../adapters/slack/payloads.js";
import type { FakeSlackMessage } from "../fakes/slack-api.js";
import {
  ADMIN,
  type Bot,
  createWorld,
  eventually,
  HOST_CALLBACK_TOKEN,
  ORDER_SECRET,
  REPORT_SECRET,
  SERVICE_API_KEY,
  SLACK_BOT_TOKEN,
  TELEGRAM_SECRET,
  TG_CHAT,
  type World,
} from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * The logs of a full run at LOG_LEVEL=debug, captured as the JSON lines pino writes: Slack and
 * Telegram on, commands on both, buttons, signed webhooks (configured and registered secrets), Host
 * Mode callbacks, refused requests and a failing service call. No secret value may appear anywhere
 * in them. The logger gets no list of secrets (main.ts gives it one as a last line of defence), so
 * this checks what the code itself logs. And the logs must still tell an operator what happened.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const CHANNEL = "C0OPS";

async function quoteAndConfirm(
  world: World,
  bot: Bot,
  line: string,
  user = ADMIN,
): Promise<FakeSlackMessage> {
  const before = world.slack.channelMessages(CHANNEL).length;
  expect((await bot.command(line, { user })).status).toBe(200);
  const quote = structuredClone(
    await eventually(
      () =>
        world.slack
          .channelMessages(CHANNEL)
          .slice(before)
          .find((m) => buttonLabels(m).some((l) => /Confirm|Start/.test(l))),
      `the quote of ${line}`,
    ),
  );
  expect((await bot.click(quote, /^(Confirm|Start)/, { user })).status).toBe(200);
  return eventually(
    () => world.slack.channelMessages(CHANNEL).find((m) => m.ts === quote.ts && m.edits >= 1),
    `the outcome of ${line}`,
  );
}

describe("secrets in logs", () => {
  it("a full run logs what happened and none of the secret values", async () => {
    const world = await createWorld({
      telegram: true,
      redis: { url: redis.url, prefix: redis.prefix },
      sandbox: { energy: { order5mLatencyMs: 5, webhookDelayMs: 10, hostFirstCycleMs: 30 } },
    });
    const bot = await world.start();
    const { slack, sandbox } = world;
    const telegram = world.telegram!;

    // Slack: commands, set-up of the webhooks (secrets registered and kept), an order with its button.
    await bot.command("/help");
    await bot.command("/ops setup webhooks", { user: ADMIN });
    await eventually(
      () => sandbox.calls("order_webhooks.create").length === 1,
      "the order webhook registered",
    );
    const energyAddress = tronAddress("logs-energy");
    await quoteAndConfirm(world, bot, `/energy ${energyAddress} 65k`);
    // The service's signed delivery webhook (registered secret) is routed back into the channel.
    await eventually(
      () => slack.channelMessages(CHANNEL).some((m) => m.via === "chat.postMessage"),
      "the delivery notification",
    );
    // Host Mode: start (the service calls back with the cycle), stop (host_paused).
    const hostAddress = tronAddress("logs-host");
    await quoteAndConfirm(world, bot, `/host start ${hostAddress}`);
    await eventually(
      () => bot.logs.some((l) => l.includes("Host Mode callback stored")),
      "a Host Mode callback",
    );
    await bot.command(`/host stop ${hostAddress}`, { user: ADMIN });
    await eventually(
      () => bot.logs.filter((l) => l.includes("Host Mode callback stored")).length >= 2,
      "the host_paused callback",
    );

    // A webhook signed with the configured secret, a forged one, a callback with a wrong token.
    const [order] = sandbox.energy.orders();
    expect((await bot.webhook("orders", delegationEvent(8801, order!.orderId, energyAddress))).status).toBe(
      200,
    );
    const forged = await fetch(`${bot.origin}/webhooks/orders`, {
      method: "POST",
      headers: {
        "x-service-timestamp": String(Math.floor(Date.now() / 1000)),
        "x-service-signature": `sha256=${"0".repeat(64)}`,
      },
      body: "{}",
    });
    expect(forged.status).toBe(401);
    const wrongToken = `${HOST_CALLBACK_TOKEN}x`;
    expect((await fetch(`${bot.origin}/callbacks/host/${wrongToken}?event=host_paused`)).status).toBe(404);

    // Telegram: commands, and an error (the service fails).
    await bot.say("/prices");
    sandbox.inject(
      "compliance.lookup",
      { kind: "reply", reply: { status: 500, json: { error: "down" } } },
      1,
    );
    await bot.say(`/compliance ${tronAddress("logs-compliance")}`);
    await eventually(() => telegram.messages(TG_CHAT).length >= 2, "the Telegram answers");
    await bot.app.drain(3_000);

    const registered = [
      ...(await storedWebhookSecrets(bot.app.deps.store, "orders")),
      ...(await storedWebhookSecrets(bot.app.deps.store, "reports")),
    ].map((s) => s.secret);
    expect(registered.length).toBeGreaterThanOrEqual(2);
    const secrets: Record<string, string> = {
      SERVICE_API_KEY,
      SLACK_BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
      ORDER_WEBHOOK_SECRETS: ORDER_SECRET,
      REPORT_WEBHOOK_SECRETS: REPORT_SECRET,
      HOST_CALLBACK_TOKEN,
      "a secret registered by setup webhooks": registered[0]!,
      "another registered secret": registered[1]!,
    };
    const all = bot.logs.join("");
    expect(bot.logs.length).toBeGreaterThan(50);
    for (const [name, value] of Object.entries(secrets)) {
      expect(all.includes(value), `${name} appears in the logs`).toBe(false);
      // Nor a long enough piece of it (a secret cut or encoded on its way into a line).
      expect(all.includes(value.slice(-12)), `the end of ${name} appears in the logs`).toBe(false);
    }
    expect(all.includes(wrongToken)).toBe(false);

    // Useful: every line is JSON, and the events an operator looks for are there.
    const lines = bot.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const messages = lines.map((l) => String(l.msg));
    for (const expected of [
      "Slack adapter ready",
      "telegram: ready",
      "command",
      "action claimed",
      "service call",
      "webhook stored",
      "Host Mode callback stored",
      "notification routed",
      "service call failed",
      "Host Mode callback refused: wrong token",
    ]) {
      expect(messages, `a "${expected}" line`).toContain(expected);
    }
    expect(messages.some((m) => m.startsWith("webhook refused: signature matches no accepted secret"))).toBe(
      true,
    );
    const failed = lines.find((l) => l.msg === "service call failed");
    expect(failed).toMatchObject({
      endpoint: "compliance.lookup",
      httpStatus: 500,
      level: 40,
      verb: "compliance",
    });
    const verbs = new Set(lines.filter((l) => l.msg === "command").map((l) => l.verb));
    expect([...verbs].sort()).toEqual(["compliance", "energy", "help", "host", "prices", "setup"]);
  });
});
