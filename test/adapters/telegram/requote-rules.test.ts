import { describe, expect, it } from "vitest";
import type { FakeMessage } from "../../fakes/telegram-api.js";
import { freshAddress, NOON } from "../../support/spend-harness.js";
import { GROUP_CHAT, startTelegramHarness, type TelegramHarness } from "./harness.js";

/**
 * Issue 39 on Telegram: a quote given again at Confirm obeys the rules of a first quote. Above a
 * cap it is the refusal line with no keyboard; a payout run whose address is newly on the deny
 * list is quoted again without it (listed under "left out") with a fresh Confirm.
 */
async function lastMessage(h: TelegramHarness): Promise<FakeMessage> {
  await h.settle();
  const message = h.fake.messages(GROUP_CHAT).at(-1);
  if (!message) throw new Error("nothing was posted");
  return structuredClone(message);
}

const current = (h: TelegramHarness, message: FakeMessage) =>
  h.fake.messages(GROUP_CHAT).find((m) => m.message_id === message.message_id);
const labels = (message: FakeMessage | undefined) =>
  message?.replyMarkup?.inline_keyboard.flat().map((b) => b.text) ?? [];

describe("telegram: a re-quote obeys the rules of a first quote", () => {
  it("a price rise above OPS_MAX_ORDER_TRX answers the refusal line in place, with no Confirm, and orders nothing", async () => {
    const h = await startTelegramHarness({
      settings: { maxOrderTrx: "4" },
      // The sandbox prices by the hour of the day: at noon the 5-minute "Day 06-18" period (3.12 TRX for 65k).
      sandbox: { now: () => Date.parse(NOON) },
    });
    await h.say(`/energy ${freshAddress("tg-cap")} 65k`, { chat: GROUP_CHAT });
    const quote = await lastMessage(h);
    expect(labels(quote)).toEqual(["Confirm 3.12 TRX", "Cancel"]);
    h.sandbox.prices.raiseEnergy(23);
    await h.click(quote, /^Confirm/);
    await h.settle();

    const moved = current(h, quote);
    expect(moved?.text).toContain("The price rose by 1.495 TRX (3.12 → 4.615 TRX)");
    expect(moved?.text).toContain("above the cap of 4 TRX per order (OPS_MAX_ORDER_TRX)");
    expect(labels(moved)).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("a payout address newly on the deny list is left out: the run quoted again without it, then ordered without it", async () => {
    const h = await startTelegramHarness();
    const list = Array.from({ length: 3 }, () => freshAddress("tg-drop"));
    await h.say(`/energy 65k ${list.join(" ")}`, { chat: GROUP_CHAT });
    const quote = await lastMessage(h);
    expect(quote.text).toContain("Addresses: 3 to order");
    const blocked = list[1] ?? "";
    h.sandbox.screening.setCategory(blocked, "usdt_frozen");
    await h.click(quote, /^Confirm/);
    await h.settle();

    const again = structuredClone(current(h, quote)) as FakeMessage;
    expect(again.text).toContain(`Now on the deny list: ${blocked}`);
    expect(again.text).toContain("Left out (1), not ordered:");
    expect(again.text).toContain("On the deny list (usdt_frozen)");
    expect(labels(again)).toEqual([expect.stringMatching(/^Confirm [\d.]+ TRX$/), "Cancel"]);
    expect(h.sandbox.calls("orchestrator.create")).toEqual([]);

    await h.click(again, /^Confirm/);
    await h.settle();
    const [call] = h.sandbox.calls("orchestrator.create");
    const items = (call?.body as { items?: unknown[] } | undefined)?.items;
    expect(items).toHaveLength(2);
    expect(JSON.stringify(items)).not.toContain(blocked);
  });
});
