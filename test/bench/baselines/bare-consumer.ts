import { Redis } from "ioredis";
import { Pool } from "undici";
import { FAKE_SLACK_BOT_TOKEN } from "../../fakes/slack-api.js";
import { onCleanup } from "../support/cleanup.js";

/**
 * Baseline of figure 3, the consuming half: a few loops that BLPOP the bare server's inbox, look
 * up the origin channel with one GET, and call chat.postMessage on the fake Slack API. No
 * retries, no pacing, no rendering: the least a durable webhook → chat pipeline does.
 */
export interface BareConsumerOptions {
  redisUrl: string;
  prefix: string;
  slackOrigin: string;
  concurrency: number;
}

const BLOCK_SECONDS = 1;

export const bareOriginKey = (prefix: string, orderId: string) => `${prefix}origin:${orderId}`;

export function startBareConsumer(o: BareConsumerOptions): { stop(): Promise<void> } {
  const pool = new Pool(o.slackOrigin, { connections: o.concurrency });
  const connections = Array.from({ length: o.concurrency }, () => new Redis(o.redisUrl));
  let running = true;

  async function loop(redis: Redis): Promise<void> {
    while (running) {
      const popped = await redis.blpop(`${o.prefix}inbox`, BLOCK_SECONDS).catch(() => null);
      if (!popped) continue;
      const event = JSON.parse(popped[1]) as { order_id: string; energy_amount?: number };
      const channel = await redis.get(bareOriginKey(o.prefix, event.order_id));
      if (!channel) continue;
      const { body } = await pool.request({
        method: "POST",
        path: "/api/chat.postMessage",
        headers: {
          authorization: `Bearer ${FAKE_SLACK_BOT_TOKEN}`,
          "content-type": "application/json; charset=utf-8",
        },
        body: JSON.stringify({ channel, text: `Energy delivered (order ${event.order_id})` }),
      });
      await body.dump();
    }
  }

  const loops = connections.map((redis) => loop(redis).catch(() => {}));
  const cleanup = onCleanup("bare consumer", async () => {
    running = false;
    await Promise.all(loops);
    await Promise.all(connections.map((r) => r.quit().catch(() => r.disconnect())));
    await pool.close();
  });
  return { stop: cleanup.stop };
}
