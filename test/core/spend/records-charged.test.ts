import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { buildDigest } from "../../../src/core/digest/summary.js";
import { readDay } from "../../../src/core/ledger/ledger.js";
import { createNotificationRouter } from "../../../src/core/service-events/route.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import {
  type CoreHarnessOptions,
  headersTimeoutDispatcher,
  operator,
  replyText,
} from "../../support/core-harness.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * Records count what the service charged, whichever path learned it, and Host Mode cycles count
 * toward the daily cap of whoever started Host Mode: the real core, the sandbox over HTTP, Redis.
 */
const spend = useSpendHarness();
let redis: ReturnType<typeof testRedis> | undefined;
afterEach(async () => {
  await redis?.cleanup();
  redis = undefined;
});

async function setup(options: CoreHarnessOptions = {}) {
  redis = testRedis();
  const store = createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
  return spend.setup({ store, ...options });
}

const today = (h: { clock: { now(): number } }) => new Date(h.clock.now()).toISOString().slice(0, 10);

describe("an orchestrator order whose create answer was lost", () => {
  it("is reconciled, tracked to its end, and counted in the digest and the day at what was charged", async () => {
    // The case 5: the create took effect, its answers never came back in time.
    const h = await setup({ client: { dispatcher: headersTimeoutDispatcher(150) } });
    const address = freshAddress("lost-orch");
    const q = await quote(h, `energy ${address} 700k`);
    h.sandbox.inject("orchestrator.create", { kind: "late", ms: 400 }, 2);
    const answer = replyText(await h.click(operator, q.confirm));
    expect(answer).not.toContain("Orchestrator order accepted");
    await h.waitFor(
      () => h.notifications.some((n) => /Orchestrator order (delivered|finished)/.test(replyText(n.reply))),
      "the orchestrator summary",
      15_000,
    );
    await h.settle();
    // 700,000 energy at the 1-hour peak price of 65 SUN.
    const chargedSun = 65 * 700_000;
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    const digest = await buildDigest(h.deps, today(h));
    expect(digest.spends.map((s) => [s.kind, s.who, s.trx.toFixed()])).toEqual([
      ["energy", "slack:U0OPER", "45.5"],
    ]);
    const entry = (await readDay(h.store, today(h))).find((e) => e.address === address);
    expect(entry).toMatchObject({
      kind: "energy",
      result: "ordered",
      amountSun: chargedSun,
      energy: 700_000,
    });
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(chargedSun);
    const final = (await readAudit(h.store, 10)).find((e) => e.message?.startsWith("orchestrator final"));
    expect(final?.message).toContain("charged 45.5 TRX");
  });
});

describe("Host Mode cycles and the daily cap", () => {
  it("count toward the starter's daily cap: once it is reached, their energy order is refused, naming the cycles", async () => {
    // The case 6: OPS_DAILY_LIMIT_TRX=10, Host Mode started, cycles of 4 + 2 + 2 + 4 TRX.
    const h = await setup({ settings: { dailyLimitTrx: "10" } });
    const host = freshAddress("cap-host");
    const start = await quote(h, `host start ${host}`);
    expect(replyText(start.reply)).toContain(
      "Each cycle counts toward your daily limit of 10 TRX (OPS_DAILY_LIMIT_TRX) as it is charged",
    );
    expect(replyText(await h.click(operator, start.confirm))).toContain("Host Mode started");
    // A quote made while the day still has room.
    const energy = await quote(h, `energy ${freshAddress("cap-energy")} 65k`);
    const router = createNotificationRouter(h.deps, { alerts: [], originGraceMs: [] });
    for (const [i, charged] of ["4.0000", "2.0000", "2.0000", "4.0000"].entries()) {
      const cycle = {
        event: "host.cycle" as const,
        address: host,
        order_id: `T-cap-${i}`,
        hash: `h${i}`,
        charged,
      };
      await router.route(cycle, { deferrals: 0 });
      await router.route(cycle, { deferrals: 0 }); // a replayed callback counts once
    }
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(12_000_000);

    const refused = replyText(await h.click(operator, energy.confirm));
    expect(refused).toMatch(/^Not ordered: You have used your daily limit of 10 TRX/);
    expect(refused).toContain("Host Mode cycles you started count toward it: 12 TRX of today's total.");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const again = replyText(await h.run(operator, `energy ${freshAddress("cap-energy")} 65k`));
    expect(again).toContain("Host Mode cycles you started count toward it: 12 TRX");
  });
});
