import { afterEach, describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { actionHandlers, commands } from "../../../src/core/command-registry.js";
import { createCore } from "../../../src/core/core.js";
import type { CoreDeps } from "../../../src/core/deps.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import { channel, operator, replyText } from "../../support/core-harness.js";
import { testRedis } from "../../support/redis.js";
import { freshAddress, tokenOf, useSpendHarness } from "../../support/spend-harness.js";

const spend = useSpendHarness();
const DAY_COST_SUN = 48 * 65_000;
let redis: ReturnType<typeof testRedis> | undefined;
afterEach(async () => {
  await redis?.cleanup();
  redis = undefined;
});

/** Two bot instances: one service, one Redis (each its own connection), one sandbox. */
async function twoInstances(options: Parameters<typeof spend.setup>[0] = {}) {
  const h = await spend.setup(options);
  redis = testRedis();
  const instance = () => {
    const shared = redis as ReturnType<typeof testRedis>;
    const store = createRedisStore({ redis: shared.connect(), prefix: shared.prefix });
    const deps: CoreDeps = { ...h.deps, store };
    return { store, core: createCore(deps, { commands, actions: actionHandlers }) };
  };
  return { h, a: instance(), b: instance() };
}

describe("energy on Redis: two instances", () => {
  it("Confirm pressed on both instances at once places one order and charges once", async () => {
    const { h, a, b } = await twoInstances();
    const address = freshAddress("redis");
    const quoteReply = await a.core.handle({
      kind: "command",
      actor: operator,
      conversation: channel,
      text: `energy ${address} 65k`,
    });
    const confirm = tokenOf(quoteReply, /^Confirm/);
    const click = { kind: "action" as const, actor: operator, conversation: channel, token: confirm };
    const replies = await Promise.all([
      a.core.handle(click),
      b.core.handle(click),
      a.core.handle(click),
      b.core.handle(click),
    ]);

    const texts = replies.map(replyText);
    expect(texts.filter((t) => t.includes("Energy delegated"))).toHaveLength(1);
    expect(texts.filter((t) => t === "Already handled.")).toHaveLength(3);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect(h.sandbox.account.balanceSun).toBe(500 * SUN_PER_TRX - DAY_COST_SUN);
    expect((await spentTodaySun(b.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
    const audit = await readAudit(b.store, 5);
    expect(audit.map((e) => e.result)).toEqual(["ok"]);
  });

  it("Confirm on one instance and Cancel on the other: exactly one of them wins", async () => {
    const { h, a, b } = await twoInstances();
    const quoteReply = await b.core.handle({
      kind: "command",
      actor: operator,
      conversation: channel,
      text: `energy ${freshAddress("redis")} 65k`,
    });
    const press = (token: string) => ({
      kind: "action" as const,
      actor: operator,
      conversation: channel,
      token,
    });
    const [confirmed, cancelled] = await Promise.all([
      a.core.handle(press(tokenOf(quoteReply, /^Confirm/))),
      b.core.handle(press(tokenOf(quoteReply, "Cancel"))),
    ]);
    const outcomes = [replyText(confirmed), replyText(cancelled)];
    expect(outcomes.filter((t) => t === "Already handled.")).toHaveLength(1);
    const ordered = outcomes.some((t) => t.includes("Energy delegated"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(ordered ? 1 : 0);
  });

  it("the daily limit is shared by every instance", async () => {
    const { h, a, b } = await twoInstances({ settings: { dailyLimitTrx: "5" } });
    const run = (text: string) => ({
      kind: "command" as const,
      actor: operator,
      conversation: channel,
      text,
    });
    const first = await a.core.handle(run(`energy ${freshAddress("redis")} 65k`));
    await a.core.handle({
      kind: "action",
      actor: operator,
      conversation: channel,
      token: tokenOf(first, /^Confirm/),
    });
    const second = await b.core.handle(run(`energy ${freshAddress("redis")} 65k`));
    expect(replyText(second)).toContain("only 1.88 TRX is left today");
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});
