import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { messageText } from "../adapters/slack/harness.js";
import { blocksProblem } from "../fakes/slack-blocks.js";
import { createWorld, eventually, TG_CHAT } from "../support/app-world.js";
import { quietPeriod } from "../webhooks/bot.js";
import { delegationEvent } from "../webhooks/signed.js";

/**
 * A signed, well-formed delivery with oversized fields (501 `tx_hashes`, a 201-character
 * `order_id`) is stored, acknowledged and posted: limits belong to rendering. The notice lists the
 * first hashes and says how many more there are, in one message on each platform.
 */
const hashes = (n: number): string[] => Array.from({ length: n }, () => randomBytes(32).toString("hex"));

describe("oversized fields in a signed webhook", () => {
  it("501 tx_hashes and a 201-character order_id: 200, and one capped message in the Telegram alert chat", async () => {
    const world = await createWorld({ telegram: true, env: { ALERT_TELEGRAM_CHAT: String(TG_CHAT) } });
    const bot = await world.start();
    const orderId = `5M${"A".repeat(199)}`;
    const event = {
      ...delegationEvent(92_001, orderId, tronAddress("oversized-fields")),
      tx_hashes: hashes(501),
    };
    const answer = await bot.webhook("orders", event);
    expect(answer.status).toBe(200);

    const [notice] = await eventually(() => {
      const messages = world.telegram?.messages(TG_CHAT) ?? [];
      return messages.length > 0 && messages;
    }, "the notice");
    expect(notice?.text).toMatch(/Energy delivered/);
    expect(notice?.text).toContain("… and 491 more (501 in all)");
    await quietPeriod(300);
    expect(world.telegram?.messages(TG_CHAT)).toHaveLength(1);
    expect(notice?.html.length).toBeLessThanOrEqual(4096);
  });

  it("the same delivery on Slack: one message, the count of hashes left out, Block Kit valid", async () => {
    const world = await createWorld({ env: { ALERT_SLACK_CHANNEL: "C0ALERTS" } });
    const bot = await world.start();
    const event = {
      ...delegationEvent(92_002, "5MSLACKMANY", tronAddress("oversized-slack")),
      tx_hashes: hashes(500),
    };
    expect((await bot.webhook("orders", event)).status).toBe(200);
    const message = await eventually(() => world.slack.channelMessages("C0ALERTS")[0], "the notice");
    expect(messageText(message)).toContain("… and 490 more (500 in all)");
    expect(blocksProblem(message.blocks)).toBeUndefined();
    expect(world.slack.channelMessages("C0ALERTS")).toHaveLength(1);
  });
});
