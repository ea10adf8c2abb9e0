import { describe, expect, it } from "vitest";
import type { FakeSlackMessage } from "../../fakes/slack-api.js";
import { freshAddress, NOON } from "../../support/spend-harness.js";
import { buttonLabels, CHANNEL, messageText, type SlackHarness, startSlackHarness } from "./harness.js";

/**
 * Issue 39 on Slack: a quote given again at Confirm obeys the rules of a first quote. Above a cap
 * it is the refusal line with no Confirm; a payout run whose address is newly on the deny list is
 * quoted again without it (listed under "left out") with a fresh Confirm, and nothing goes to it.
 */
async function lastMessage(h: SlackHarness): Promise<FakeSlackMessage> {
  await h.settle();
  const message = h.fake.channelMessages(CHANNEL).at(-1);
  if (!message) throw new Error("nothing was posted");
  return structuredClone(message);
}

const current = (h: SlackHarness, message: FakeSlackMessage) =>
  h.fake.channelMessages(CHANNEL).find((m) => m.ts === message.ts);

describe("slack: a re-quote obeys the rules of a first quote", () => {
  it("a price rise above OPS_MAX_ORDER_TRX answers the refusal line in place, with no Confirm, and orders nothing", async () => {
    const h = await startSlackHarness({
      settings: { maxOrderTrx: "4" },
      // The sandbox prices by the hour of the day: at noon the 5-minute "Day 06-18" period (3.12 TRX for 65k).
      sandbox: { now: () => Date.parse(NOON) },
    });
    await h.command(`/energy ${freshAddress("slack-cap")} 65k`);
    const quote = await lastMessage(h);
    expect(buttonLabels(quote)).toEqual(["Confirm 3.12 TRX", "Cancel"]);
    h.sandbox.prices.raiseEnergy(23);
    await h.click(quote, /^Confirm/);
    await h.settle();

    const moved = current(h, quote);
    expect(messageText(moved)).toContain("The price rose by 1.495 TRX (3.12 → 4.615 TRX)");
    expect(messageText(moved)).toContain("above the cap of 4 TRX per order (OPS_MAX_ORDER_TRX)");
    expect(buttonLabels(moved)).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a payout address newly on the deny list is left out: the run quoted again without it, then ordered without it", async () => {
    const h = await startSlackHarness();
    const list = Array.from({ length: 3 }, () => freshAddress("slack-drop"));
    await h.command(`/energy 65k ${list.join(" ")}`);
    const quote = await lastMessage(h);
    expect(messageText(quote)).toContain("3 to order");
    const blocked = list[1] ?? "";
    h.sandbox.screening.setCategory(blocked, "usdt_frozen");
    await h.click(quote, /^Confirm/);
    await h.settle();

    const again = structuredClone(current(h, quote)) as FakeSlackMessage;
    expect(messageText(again)).toContain(`Now on the deny list: ${blocked}`);
    expect(messageText(again)).toContain("Left out (1), not ordered:");
    expect(messageText(again)).toContain("On the deny list (usdt_frozen)");
    expect(buttonLabels(again)).toEqual([expect.stringMatching(/^Confirm [\d.]+ TRX$/), "Cancel"]);
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);

    await h.click(again, /^Confirm/);
    await h.settle();
    const [call] = h.sandbox.calls("orchestrator.create");
    const items = (call?.body as { items?: unknown[] } | undefined)?.items;
    expect(items).toHaveLength(2);
    expect(JSON.stringify(items)).not.toContain(blocked);
  });
});
