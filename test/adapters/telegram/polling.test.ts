import { describe, expect, it } from "vitest";
import { STORE_UNAVAILABLE_LINE } from "../../../src/core/faults/store-unavailable.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import type { Store } from "../../../src/store/store.js";
import { callbackUpdate, messageUpdate, OPERATOR, PRIVATE_CHAT, startTelegramHarness } from "./harness.js";

describe("telegram long polling (no TELEGRAM_WEBHOOK_SECRET)", () => {
  it("serves no webhook route, drops the webhook, and answers updates fetched with getUpdates", async () => {
    const h = await startTelegramHarness({ webhookSecret: null });
    expect(h.adapter.route).toBeUndefined();
    expect(h.fake.calls("setWebhook")).toEqual([]);
    expect(h.fake.calls("deleteWebhook")).toHaveLength(1);
    expect((await h.postUpdate(messageUpdate("/help", PRIVATE_CHAT, OPERATOR))).status).toBe(404);

    h.fake.pushUpdate(messageUpdate("/balance", PRIVATE_CHAT, OPERATOR));
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1);
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/^Account balance\n/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("a button pressed while polling is answered and its message replaced", async () => {
    const h = await startTelegramHarness({ webhookSecret: null });
    h.fake.pushUpdate(
      messageUpdate("/energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k", PRIVATE_CHAT, OPERATOR),
    );
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1);
    // The USDT contract is refused before any button: one line, no order.
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toMatch(/smart contract/);

    h.fake.pushUpdate(
      messageUpdate("/energy TYmQPLG5rHdn7VWHH9QdWHCxLSBcYwgFkV 65k", PRIVATE_CHAT, OPERATOR),
    );
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 2);
    const quote = structuredClone(h.fake.messages(PRIVATE_CHAT)[1]);
    if (!quote) throw new Error("no quote");
    h.fake.pushUpdate(
      callbackUpdate(quote, quote.replyMarkup?.inline_keyboard.flat()[1]?.callback_data ?? "", OPERATOR),
    );
    await h.fake.waitFor(() => h.fake.calls("editMessageText").length === 1);
    expect(h.fake.calls("answerCallbackQuery")).toHaveLength(1);
    expect(h.fake.messages(PRIVATE_CHAT)[1]?.text).toBe("Cancelled by @olga_ops.");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("an update the store cannot claim is answered 'storage is unavailable' and runs nothing", async () => {
    const memory = createMemoryStore();
    const store: Store = {
      ...memory,
      close: () => memory.close(),
      setIfNotExists: async (key, value, ttlMs) => {
        if (key.startsWith("telegram:update:")) throw new Error("connection lost");
        return memory.setIfNotExists(key, value, ttlMs);
      },
    };
    const h = await startTelegramHarness({ webhookSecret: null, store });
    h.fake.pushUpdate(messageUpdate("/balance", PRIVATE_CHAT, OPERATOR));
    await h.fake.waitFor(() => h.fake.messages(PRIVATE_CHAT).length === 1);
    expect(h.fake.messages(PRIVATE_CHAT)[0]?.text).toBe(STORE_UNAVAILABLE_LINE);
    expect(h.sandbox.calls()).toEqual([]);
  });

  it("stops cleanly: the pending getUpdates is abandoned and stop resolves", async () => {
    // Telegram would hold this poll for 30 s: stopping must not wait for its answer.
    const h = await startTelegramHarness({ webhookSecret: null, pollTimeoutSeconds: 30 });
    await h.fake.waitFor(() => h.fake.polls.held() === 1);
    await h.adapter.close();
    expect(h.fake.polls.abandoned()).toBe(1);
    expect(h.fake.polls.held()).toBe(0);
    expect(h.adapter.ready()).toBe(false);
  });
});
