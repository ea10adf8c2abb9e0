import { afterEach, describe, expect, it } from "vitest";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { operator, replyText } from "../../support/core-harness.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * Host Mode past the daily cap across two instances on one Redis (issue 39, item 2): the cycles
 * that cross the cap arrive at both at once, and the alert is raised once. The real core, the
 * sandbox over HTTP, Redis.
 */
const spend = useSpendHarness();
const redis = testRedis();
afterEach(() => redis.cleanup());

const PAST_CAP = /took the UTC day of .* past the daily cap/;
const instance = () =>
  spend.setup({
    store: createRedisStore({ redis: redis.connect(), prefix: redis.prefix }),
    settings: { dailyLimitTrx: "10" },
  });

describe("Host Mode past the daily cap, two instances", () => {
  it("two cycles past the cap at once, one on each instance: one alert", async () => {
    const [a, b] = [await instance(), await instance()];
    const address = freshAddress("over-cap-two");
    const start = await quote(a, `host start ${address}`);
    expect(replyText(await a.click(operator, start.confirm))).toContain("Host Mode started");
    const routers = [a, b].map((h) => createNotificationRouter(h.deps, { alerts: [], originGraceMs: [] }));
    const cycle = (n: number, charged: string) => ({
      event: "host.cycle" as const,
      address,
      order_id: `T-two-${n}`,
      hash: `h${n}`,
      charged,
    });
    for (const [n, charged] of ["4.0000", "2.0000", "2.0000"].entries())
      await routers[0]?.route(cycle(n, charged), { deferrals: 0 });
    const alerts = () =>
      [...a.notifications, ...b.notifications].filter((n) => PAST_CAP.test(replyText(n.reply)));
    expect(alerts()).toEqual([]);

    await Promise.all([
      routers[0]?.route(cycle(3, "4.0000"), { deferrals: 0 }),
      routers[1]?.route(cycle(4, "4.0000"), { deferrals: 0 }),
    ]);
    // A repeated callback, on either instance, raises nothing again.
    await routers[1]?.route(cycle(3, "4.0000"), { deferrals: 0 });
    await Promise.all([a.settle(), b.settle()]);
    expect(alerts()).toHaveLength(1);
    const said = replyText(alerts()[0]!.reply);
    expect(said).toMatch(/(12|16) TRX charged today, daily cap 10 TRX/);
    // One reading of the ledger: the starter spent nothing but cycles, so the two figures are equal
    // (issue 44, finding 6: "16.6 TRX charged today … cycles make up 20.9 TRX of it").
    const charged = /([\d.]+) TRX charged today/.exec(said)?.[1];
    expect(said).toContain(`Host Mode cycles make up ${charged} TRX of it.`);
  });
});
