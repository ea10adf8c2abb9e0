import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "../adapters/slack/harness.js";
import { createWorld, eventually } from "../support/app-world.js";
import { testRedis } from "../support/redis.js";
import { quietPeriod } from "../webhooks/bot.js";

/**
 * The scheduled runway check as `npm start` wires it: two instances on one Redis, the sandbox's
 * balance already below OPS_LOW_BALANCE_TRX. The first check runs at start; one alert reaches
 * ALERT_SLACK_CHANNEL, however many instances started.
 */
const redis = testRedis();
afterEach(() => redis.cleanup());

const ALERTS = "C0ALERTS";

describe("scheduled money jobs", () => {
  it("two instances post one low-balance alert, with the deposit address", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      env: { OPS_LOW_BALANCE_TRX: "100", ALERT_SLACK_CHANNEL: ALERTS, OPS_DIGEST_AT: "00:00" },
    });
    world.sandbox.account.balanceSun = 25_000_000;
    await world.start();
    await world.start();
    const alert = await eventually(() => world.slack.channelMessages(ALERTS)[0], "the runway alert");
    expect(messageText(alert)).toContain("The balance is 25 TRX, below 100 TRX (OPS_LOW_BALANCE_TRX).");
    expect(messageText(alert)).toContain(world.sandbox.account.depositAddress);
    await quietPeriod(1_000);
    expect(world.slack.channelMessages(ALERTS)).toHaveLength(1);
    expect(world.sandbox.calls("userinfo.get").length).toBeLessThanOrEqual(2);
  });
});
