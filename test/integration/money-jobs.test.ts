import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import { ADMIN, createWorld, eventually, OPERATOR } from "../support/app-world.js";
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
    // One alert, and its balance chart beside it (a Slack upload carries no buttons): nothing twice.
    const posted = world.slack.channelMessages(ALERTS);
    expect(posted.map((m) => (m.files ? "chart" : messageText(m).split("\n")[0]))).toEqual([
      "Balance running low",
      "chart",
    ]);
    expect(posted[1]?.files).toHaveLength(1);
    expect(world.sandbox.calls("userinfo.get").length).toBeLessThanOrEqual(2);
  });
});

describe("approval across instances", () => {
  it("Approve clicked on two instances at once places one order; the requester's click is refused", async () => {
    const world = await createWorld({
      redis: { url: redis.url, prefix: redis.prefix },
      env: { OPS_APPROVAL_TRX: "1" },
    });
    const [a, b] = [await world.start(), await world.start()];
    await a.command(`/energy ${tronAddress("two-instances-approval")} 65k`);
    const quote = structuredClone(
      await eventually(
        () => world.slack.channelMessages("C0OPS").find((m) => /Confirm/.test(messageText(m))),
        "the quote",
      ),
    );
    await a.click(quote, /^Confirm/, { user: OPERATOR });
    const asked = structuredClone(
      await eventually(
        () =>
          world.slack
            .channelMessages("C0OPS")
            .find((m) => m.ts === quote.ts && /Approval needed/.test(messageText(m))),
        "the approval request",
      ),
    );
    await b.click(asked, "Approve", { user: OPERATOR });
    await eventually(() => world.slack.ephemerals(OPERATOR.id).length > 0, "the refusal of self-approval");
    const clicks = await Promise.all([
      a.click(asked, "Approve", { user: ADMIN, actionTs: "1700000002.000100" }),
      b.click(asked, "Approve", { user: ADMIN, actionTs: "1700000002.000200" }),
    ]);
    expect(clicks.map((r) => r.status)).toEqual([200, 200]);
    await eventually(
      () =>
        world.slack
          .channelMessages("C0OPS")
          .find((m) => m.ts === quote.ts && /approved by/.test(messageText(m))),
      "the order replacing the request",
    );
    await quietPeriod(500);
    expect(world.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(world.slack.ephemerals(OPERATOR.id).map(messageText)).toEqual([
      expect.stringMatching(/another operator or admin must approve it/),
    ]);
  });
});
