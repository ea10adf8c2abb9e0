import { afterEach, describe, expect, it } from "vitest";
import { createWorld, eventually } from "../support/app-world.js";
import { type PrivateRedis, startPrivateRedis } from "../support/processes.js";

/**
 * `GET /healthz` of the whole bot: 200 only while the store, the queues, the HTTP routes and
 * every configured adapter are ready. Redis is a server of this test's own, so it can be stopped
 * (and started again) without touching the one the other test files share.
 */
let redis: PrivateRedis | undefined;
afterEach(async () => {
  await redis?.close();
  redis = undefined;
});

interface Report {
  ok: boolean;
  parts: Record<string, boolean>;
}

async function health(origin: string): Promise<{ status: number; report: Report }> {
  const response = await fetch(`${origin}/healthz`);
  return { status: response.status, report: (await response.json()) as Report };
}

describe("GET /healthz", () => {
  it("is 200 with every part ready, 503 while Redis is down, and 200 again once it is back", async () => {
    redis = await startPrivateRedis();
    const world = await createWorld({ redis: { url: redis.url, prefix: "health:" } });
    const bot = await world.start();

    const up = await health(bot.origin);
    expect(up.status).toBe(200);
    expect(up.report).toEqual({ ok: true, parts: { http: true, store: true, queues: true, slack: true } });

    await redis.stop();
    const down = await eventually(async () => {
      const h = await health(bot.origin);
      return h.status === 503 && h;
    }, "503 with Redis down");
    expect(down.report.ok).toBe(false);
    expect(down.report.parts.store).toBe(false);
    expect(down.report.parts.queues).toBe(false);
    // What does not depend on Redis still says ready: the operator sees which part is down.
    expect(down.report.parts.slack).toBe(true);
    expect(down.report.parts.http).toBe(true);

    await redis.start();
    await eventually(async () => (await health(bot.origin)).status === 200, "200 once Redis is back", 15_000);
    await bot.stop();
    // Stopped means stopped (how long it takes is the bench's business): the port no longer answers.
    await expect(fetch(`${bot.origin}/healthz`)).rejects.toThrow();
  });

  it("is 503 while an adapter is not ready (Slack refused the token at start)", async () => {
    const world = await createWorld();
    world.slack.fail("auth.test", { kind: "error", error: "invalid_auth" }, 100);
    const bot = await world.start();
    const { status, report } = await health(bot.origin);
    expect(status).toBe(503);
    expect(report.parts).toEqual({ http: true, store: true, queues: true, slack: false });
    expect(bot.logs.join("\n")).toContain("could not reach Slack");
  });

  it("answers within its own bound while Redis does not answer at all", async () => {
    redis = await startPrivateRedis();
    const world = await createWorld({ redis: { url: redis.url, prefix: "health:" } });
    const bot = await world.start();
    await redis.stop();
    // Each check gives up after its own bound (the bench measures it): the route answers, it does not hang.
    const { status, report } = await health(bot.origin);
    expect(status).toBe(503);
    expect(report.parts.store).toBe(false);
    // Stopped with Redis back: a BullMQ worker waits for Redis to close (stop is bounded by its budget).
    await redis.start();
    await eventually(async () => (await health(bot.origin)).status === 200, "200 again", 15_000);
    await bot.stop();
  });
});
