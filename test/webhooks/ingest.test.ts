import { afterEach, describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { MAX_WEBHOOK_BODY_BYTES } from "../../src/webhooks/service-webhook-route.js";
import { testRedis } from "../support/redis.js";
import { type Bot, HOST_TOKEN, startBot } from "./bot.js";
import { delegationEvent, postSigned, sandboxFor } from "./signed.js";

/**
 * The receivers on Redis + BullMQ with nothing behind them: a refused request must leave no key
 * at all (no dedup mark, no job), only a log line; an accepted one is stored before the 2xx.
 */
const SECRET = "whsec_ingest-test-secret";
const redis = testRedis();
let bot: Bot | undefined;

afterEach(async () => {
  await bot?.close();
  await bot?.sandbox.close();
  bot = undefined;
  await redis.cleanup();
});

async function keys(): Promise<string[]> {
  const admin = redis.connect();
  const found = await admin.keys(`${redis.prefix}*`);
  return found.sort();
}

describe("webhook ingest on Redis", () => {
  it("leaves no trace but a log line for a refused request, and stores an accepted one before answering", async () => {
    bot = await startBot({
      sandbox: sandboxFor(),
      redis: { url: redis.url, prefix: redis.prefix },
      ingestOnly: true,
      configured: { orders: [SECRET], reports: [] },
    });
    const now = Math.floor(Date.now() / 1000);
    const body = delegationEvent(1, "5MTRACE", tronAddress("trace"));
    const statuses = [
      (await postSigned(bot.origin, "orders", body, { secret: "whsec_wrong" })).status,
      (await postSigned(bot.origin, "orders", body, { secret: SECRET, timestamp: now - 400 })).status,
      (await postSigned(bot.origin, "orders", body, { secret: SECRET, timestamp: now + 400 })).status,
      (await postSigned(bot.origin, "orders", body, { secret: SECRET, signature: "sha1=abc" })).status,
      (await postSigned(bot.origin, "reports", body, { secret: SECRET })).status,
      (
        await postSigned(bot.origin, "orders", body, {
          secret: SECRET,
          raw: "x".repeat(MAX_WEBHOOK_BODY_BYTES + 1),
        })
      ).status,
      (
        await fetch(
          `${bot.origin}/callbacks/host/not-the-token?address=${tronAddress("t")}&order_id=T1&hash=ab`,
        )
      ).status,
    ];
    expect(statuses).toEqual([401, 401, 401, 401, 401, 413, 404]);
    expect(await keys()).toEqual([]);
    expect(bot.logger.records.filter((r) => r.level === "warn")).toHaveLength(7);
    expect(bot.logger.records.filter((r) => r.level !== "warn")).toEqual([]);

    const accepted = await postSigned(bot.origin, "orders", body, { secret: SECRET });
    expect(accepted.status).toBe(200);
    expect(await bot.queues.counts("webhooks")).toMatchObject({ waiting: 1 });
    expect((await keys()).some((key) => key.startsWith(`${redis.prefix}jobs:webhooks:`))).toBe(true);
  });

  it("stores a Host Mode callback with the right token before answering 200", async () => {
    bot = await startBot({
      sandbox: sandboxFor(),
      redis: { url: redis.url, prefix: redis.prefix },
      ingestOnly: true,
    });
    const query = `address=${tronAddress("cb")}&order_id=T77&hash=${"cd".repeat(32)}&balance_after=1.0000&idle_cycle=0&charged=4.0000`;
    const first = await fetch(`${bot.origin}/callbacks/host/${HOST_TOKEN}?${query}`);
    const repeat = await fetch(`${bot.origin}/callbacks/host/${HOST_TOKEN}?${query}`);
    expect([first.status, repeat.status]).toEqual([200, 200]);
    // One job: the repeat (same order_id) found the first still stored.
    expect(await bot.queues.counts("webhooks")).toMatchObject({ waiting: 1 });
  });
});
