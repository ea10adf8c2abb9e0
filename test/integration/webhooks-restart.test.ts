import { afterEach, describe, expect, it } from "vitest";
import type { ConversationRef } from "../../src/core/invocation.js";
import { rememberOrigin } from "../../src/core/origins.js";
import { NOTIFY_QUEUE } from "../../src/outbox/outbox.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import type { DeliveryRecord } from "../../src/sandbox/outbound.js";
import type { Sandbox } from "../../src/sandbox/server.js";
import { WEBHOOK_QUEUE } from "../../src/webhooks/index.js";
import { admin, replyText } from "../support/core-harness.js";
import { testRedis } from "../support/redis.js";
import { type Bot, createRecordingChat, quietPeriod, startBot, waitFor } from "../webhooks/bot.js";
import { delegationEvent, postSigned, randomKey, registeredSecret, sandboxFor } from "../webhooks/signed.js";

/**
 * A restart between the acknowledgement and the chat post, on real Redis and BullMQ: the first
 * bot stops after its 2xx and before anything is posted; a second one on the same Redis posts
 * the message, once, and still refuses to post a replay of it.
 */
const room: ConversationRef = { platform: "telegram", id: "4242" };

const redis = testRedis();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
  await redis.cleanup();
});

type Chat = ReturnType<typeof createRecordingChat>;
type Secrets = { orders: string[]; reports: string[] };

async function first(options: { ingestOnly: boolean; chat: Chat; configured?: Secrets }) {
  let sandbox: Sandbox | undefined;
  const bot = await startBot({
    sandbox: async (origin) => {
      sandbox = await sandboxFor()(origin);
      return sandbox;
    },
    redis: { url: redis.url, prefix: redis.prefix },
    ...options,
  });
  cleanup.push(() => sandbox!.close());
  return bot;
}

async function second(previous: Bot, chat: Chat, configured?: Secrets): Promise<Bot> {
  const bot = await startBot({
    port: previous.port,
    sandbox: previous.sandbox,
    redis: { url: redis.url, prefix: redis.prefix },
    chat,
    ...(configured && { configured }),
  });
  cleanup.push(() => bot.close());
  return bot;
}

const acknowledged = (b: Bot) =>
  (b.sandbox.outbound.history() as DeliveryRecord[]).filter(
    (r) => r.kind === "order" && r.lastStatus === 200,
  );

describe("restart between acknowledgement and delivery", () => {
  it("a delivery acknowledged by a bot that then stopped is posted once by the next bot", async () => {
    const chat = createRecordingChat();
    const dying = await first({ ingestOnly: true, chat });
    await dying.core.handle({ kind: "command", actor: admin, conversation: room, text: "setup webhooks" });
    const placed = await dying.deps.service.order5m.create({
      amount: 65_000,
      receiveAddress: tronAddress("restart"),
      idempotencyKey: randomKey(),
    });
    await rememberOrigin(dying.store, "order", placed.result.orderId, room);
    await waitFor(() => acknowledged(dying).length === 1, "the service's webhook acknowledged with 200");
    expect((await dying.queues.counts(WEBHOOK_QUEUE)).waiting).toBe(1);
    expect(chat.delivered).toEqual([]);
    await dying.close();

    const next = await second(dying, chat);
    await waitFor(() => chat.delivered.length === 1, "the message posted by the second bot");
    expect(replyText(chat.delivered[0]!.reply)).toContain(placed.result.orderId);
    expect(chat.delivered[0]?.conversation).toEqual(room);

    // The service retrying the same delivery now (its ack got lost) posts nothing more.
    const secret = await registeredSecret(next.store, "orders");
    const [sent] = acknowledged(next);
    const replay = await postSigned(next.origin, "orders", sent!.payload, { secret });
    expect(replay.status).toBe(200);
    await quietPeriod();
    expect(chat.delivered).toHaveLength(1);
    expect(acknowledged(next)[0]?.attempts).toBe(1);
  });

  it("a message queued for a chat that was down when the bot stopped is posted once by the next bot", async () => {
    const chat = createRecordingChat();
    chat.setDown(true);
    const configured = { orders: ["whsec_restart-test-secret"], reports: [] };
    const dying = await first({ ingestOnly: false, chat, configured });
    await rememberOrigin(dying.store, "order", "5MDOWN", room);
    const event = delegationEvent(501, "5MDOWN", tronAddress("down"));
    const accepted = await postSigned(dying.origin, "orders", event, { secret: "whsec_restart-test-secret" });
    expect(accepted.status).toBe(200);
    await waitFor(() => chat.failures() >= 2, "sends failing while the chat is down");
    await dying.close();
    expect(chat.delivered).toEqual([]);

    chat.setDown(false);
    const next = await second(dying, chat, configured);
    await waitFor(() => chat.delivered.length === 1, "the message after the restart");
    await quietPeriod();
    expect(chat.delivered).toHaveLength(1);
    expect(replyText(chat.delivered[0]!.reply)).toContain("5MDOWN");
    const counts = await next.queues.counts(NOTIFY_QUEUE);
    expect(counts.waiting + counts.active + counts.delayed).toBe(0);
  });
});
