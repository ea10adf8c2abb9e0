import { afterEach, describe, expect, it } from "vitest";
import type { ConversationRef } from "../../src/core/invocation.js";
import { rememberOrigin } from "../../src/core/origins.js";
import type { Reply } from "../../src/core/reply.js";
import { storedWebhookSecrets } from "../../src/core/setup/webhook-secrets.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { registerDemoWebhooks } from "../../src/webhooks/index.js";
import { admin, replyText } from "../support/core-harness.js";
import { type Bot, PUBLIC_URL, startBot, waitFor } from "../webhooks/bot.js";
import { randomKey, sandboxFor } from "../webhooks/signed.js";

/** `setup` against registries that are not empty: foreign endpoints, a lost secret, a paused endpoint. */
const room: ConversationRef = { platform: "telegram", id: "4242" };
const open: Bot[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) {
    await b.close();
    await b.sandbox.close();
  }
});

async function bot(settings: Parameters<typeof startBot>[0]["settings"] = {}): Promise<Bot> {
  const started = await startBot({ sandbox: sandboxFor(), settings });
  open.push(started);
  return started;
}

const run = (b: Bot, line: string): Promise<Reply> =>
  b.core.handle({ kind: "command", actor: admin, conversation: room, text: line });

describe("setup against existing registries", () => {
  it("says which slots are taken when both belong to other receivers, and still registers the other family", async () => {
    const b = await bot();
    await b.deps.service.webhooks.orders.create({ url: "https://one.example/hook" });
    await b.deps.service.webhooks.orders.create({ url: "https://two.example/hook" });
    const text = replyText(await run(b, "setup webhooks"));
    expect(text).toMatch(
      /Order webhooks: both endpoint slots are taken \(#\d+ https:\/\/one\.example\/hook, #\d+ https:\/\/two\.example\/hook\)/,
    );
    expect(text).toContain(`Report webhooks: registered ${PUBLIC_URL}/webhooks/reports`);
    expect(b.sandbox.calls("order_webhooks.create")).toHaveLength(2); // the test's own two
    expect(await storedWebhookSecrets(b.store, "orders")).toEqual([]);
  });

  it("renews the secret of its own endpoint when the store lost it, and resumes a paused one", async () => {
    const b = await bot();
    const created = await b.deps.service.webhooks.orders.create({ url: `${PUBLIC_URL}/webhooks/orders` });
    await b.deps.service.webhooks.orders.patch(created.id, { is_active: false });
    const text = replyText(await run(b, "setup webhooks"));
    expect(text).toContain(
      `Order webhooks: #${created.id} was registered already, but the bot did not hold its secret`,
    );
    expect(text).toContain("it was paused and is active again");
    const stored = await storedWebhookSecrets(b.store, "orders");
    expect(stored.map((s) => s.endpointId)).toEqual([created.id]);
    expect(stored[0]?.secret).not.toBe(created.secret);
    expect(b.sandbox.calls("order_webhooks.rotate")).toHaveLength(1);
    expect(b.sandbox.calls("order_webhooks.patch").map((c) => c.body)).toEqual([
      { is_active: false },
      { is_active: true },
    ]);
    // The renewed secret verifies the service's next delivery.
    const placed = await b.deps.service.order5m.create({
      amount: 65_000,
      receiveAddress: tronAddress("renewed"),
      idempotencyKey: randomKey(),
    });
    await rememberOrigin(b.store, "order", placed.result.orderId, room);
    await waitFor(() => b.chat.to(room).length === 1, "the delivery");
  });

  it("needs PUBLIC_URL, and calls nothing without it", async () => {
    const b = await bot({ publicUrl: undefined });
    const reply = await run(b, "setup webhooks");
    expect(reply.visibility).toBe("private");
    expect(replyText(reply)).toMatch(/needs PUBLIC_URL/);
    expect(b.sandbox.calls()).toEqual([]);
  });

  it("setup rotate: nothing to rotate before setup, and a bad family is refused", async () => {
    const b = await bot();
    const none = replyText(await run(b, "setup rotate"));
    expect(none).toContain(
      "Order webhooks: no endpoint of this bot is registered; run setup webhooks first.",
    );
    expect(none).toContain("Report webhooks: no endpoint of this bot is registered");
    const bad = await run(b, "setup rotate invoices");
    expect(replyText(bad)).toMatch(/setup rotate takes orders, reports or nothing/);
    expect(b.sandbox.calls("order_webhooks.rotate")).toHaveLength(0);
  });

  it("demo registration at start is idempotent", async () => {
    const b = await bot();
    await registerDemoWebhooks(b.deps);
    await registerDemoWebhooks(b.deps);
    expect(b.sandbox.calls("order_webhooks.create")).toHaveLength(1);
    expect(b.sandbox.calls("report_webhooks.create")).toHaveLength(1);
    expect(await storedWebhookSecrets(b.store, "reports")).toHaveLength(1);
  });
});

describe("setup status and the Host Mode callback token", () => {
  it("shows the callback URL with the whole token masked, even a token with a slash (one encoded builder)", async () => {
    const b = await bot({ hostCallbackToken: "ab12/zz98secret" });
    const text = replyText(await run(b, "setup status"));
    expect(text).toContain(`${PUBLIC_URL}/callbacks/host/<token>`);
    expect(text).not.toContain("ab12");
    expect(text).not.toContain("zz98secret");
  });
});
