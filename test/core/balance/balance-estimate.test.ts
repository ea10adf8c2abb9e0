import { afterEach, describe, expect, it } from "vitest";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { createRateLimiter } from "../../../src/service/limiter.js";
import { createRedisStore } from "../../../src/store/redis-store.js";
import {
  type CoreHarness,
  type CoreHarnessOptions,
  operator,
  replyButtons,
  replyText,
  useCoreHarness,
  viewer,
} from "../../support/core-harness.js";
import { type TestRedis, testRedis } from "../../support/redis.js";
import { freshAddress, quote } from "../../support/spend-harness.js";

/**
 * Quotes never wait on `userinfo` (6 reads a minute): they show the last reading minus the spends
 * this bot recorded since, with its age, and one background refresh (shared by every instance)
 * reads again within the limit.
 */
const harness = useCoreHarness();

/** The sandbox enforces its limits on the harness clock; the client's limiter shares that clock. */
async function limitedHarness(extra: CoreHarnessOptions = {}): Promise<CoreHarness> {
  let h: CoreHarness | undefined;
  const now = () => (h ? h.clock.now() : Date.now());
  const limiter = createRateLimiter({
    keyPrefix: "test:",
    now,
    // The limiter's waits pass in test time: it re-checks often while the test moves the clock.
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 10))),
  });
  h = await harness.setup({
    sandbox: { enforceRateLimits: true, now, energy: { order5mLatencyMs: 5, webhookDelayMs: 5 } },
    client: { limiter },
    ...extra,
  });
  return h;
}

const trx = (sun: number) => String(sun / SUN_PER_TRX);

describe("a quote after spends, with userinfo rate-limited", () => {
  it("still shows Confirm with the estimated balance and its age, and never earns a 429", async () => {
    const h = await limitedHarness();
    const first = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(first.reply)).toContain("Balance: 500 TRX, covers it");
    await h.click(operator, first.confirm);
    const afterSpend = h.sandbox.account.balanceSun;
    expect(afterSpend).toBeLessThan(500 * SUN_PER_TRX);
    // Someone else (another tool on this IP) uses the rest of the minute's 6 reads.
    for (let i = 0; i < 5; i += 1) await h.service.account.userinfo();
    h.clock.advance(20_000);

    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    const body = replyText(reply);
    // 500 TRX read 20 s ago, minus what this bot's order paid since.
    expect(body).toContain(`Balance: ≈ ${trx(afterSpend)} TRX, read 20 s ago, covers it`);
    expect(replyButtons(reply).map((b) => b.label)).toEqual([expect.stringMatching(/^Confirm /), "Cancel"]);
    // The refresh waits for its slot behind the quote: nothing more was asked yet.
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(6);

    h.clock.advance(41_000);
    await h.waitFor(() => h.sandbox.calls("userinfo.get")[6]?.status === 200, "the held refresh");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fresh = replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply);
    // A new reading counts only the spends recorded after it: nothing is subtracted twice.
    expect(fresh).toContain(`Balance: ${trx(afterSpend)} TRX, covers it`);
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual(Array(7).fill(200));
  });

  it("subtracts every spend this bot recorded since the reading, and only those", async () => {
    const h = await limitedHarness();
    const a = await quote(h, `energy ${freshAddress()} 65k`);
    const b = await quote(h, `energy ${freshAddress()} 100k`);
    expect(replyText(await h.click(operator, a.confirm))).toContain("Energy delegated");
    expect(replyText(await h.click(operator, b.confirm))).toContain("Energy delegated");
    // An order placed elsewhere (the website) is not known to the bot until the next reading.
    h.sandbox.account.balanceSun -= 7 * SUN_PER_TRX;
    const charged = 500 * SUN_PER_TRX - 7 * SUN_PER_TRX - h.sandbox.account.balanceSun;

    const { reply } = await quote(h, `energy ${freshAddress()} 65k`);
    expect(replyText(reply)).toMatch(
      new RegExp(
        `Balance: ≈ ${trx(500 * SUN_PER_TRX - charged).replace(".", "\\.")} TRX, read (<1|\\d) s ago`,
      ),
    );
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(1);
  });

  it("offers no Confirm when the estimate does not cover the order, read again (issue 44: never on a stale reading)", async () => {
    const h = await limitedHarness();
    h.sandbox.account.balanceSun = 4 * SUN_PER_TRX;
    const first = await quote(h, `energy ${freshAddress()} 65k`);
    await h.click(operator, first.confirm);
    const reply = await h.run(operator, `energy ${freshAddress()} 65k`);
    // The estimate did not cover it: a fresh reading was made before refusing, and it is shown as it is.
    expect(replyText(reply)).toMatch(/Balance: [01]\.\d+ TRX, does NOT cover it/);
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(2);
    expect(replyButtons(reply)).toEqual([]);
  });
});

describe("balance, asked when no userinfo slot is free", () => {
  it("answers at once with the last reading, its age and when the next read is free", async () => {
    const h = await limitedHarness();
    expect((await h.run(viewer, "balance")).summary).toBe("Balance 500 TRX");
    for (let i = 0; i < 5; i += 1) await h.service.account.userinfo();
    h.clock.advance(30_000);
    // The 7th read in the minute: no slot until the first one is a minute old.
    const reply = await h.run(viewer, "balance");
    expect(reply.summary).toBe("Balance 500 TRX");
    expect(replyText(reply)).toMatch(
      /This copy is 30 s old: the service allows 6 account reads a minute, so a fresh one is still on its way; ask again in 3\d s\./,
    );
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual(Array(6).fill(200));
    // The queued read is made as soon as the slot frees, and the next ask shows it.
    h.sandbox.account.balanceSun = 321 * SUN_PER_TRX;
    h.clock.advance(31_000);
    await h.waitFor(() => h.sandbox.calls("userinfo.get")[6]?.status === 200, "the queued read");
    // Its reading is stored right after the reply.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await h.run(viewer, "balance")).summary).toBe("Balance 321 TRX");
    expect(h.sandbox.calls("userinfo.get").map((c) => c.status)).toEqual(Array(7).fill(200));
  });

  it("says when the first reading can be made when there is none yet", async () => {
    const h = await limitedHarness();
    for (let i = 0; i < 6; i += 1) await h.service.account.userinfo();
    h.clock.advance(10_000);
    const reply = await h.run(viewer, "balance");
    expect(reply.visibility).toBe("private");
    expect(reply.summary).toMatch(
      /^The balance has not been read yet, and the service allows 6 account reads a minute: the next one is free in 5\d s and is queued; ask again then\.$/,
    );
    expect(h.sandbox.calls("userinfo.get")).toHaveLength(6);
    h.clock.advance(51_000);
    await h.waitFor(() => h.sandbox.calls("userinfo.get")[6]?.status === 200, "the queued read");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await h.run(viewer, "balance")).summary).toBe("Balance 500 TRX");
  });
});

describe("two instances", () => {
  let redis: TestRedis;
  afterEach(() => redis.cleanup());

  it("share one refresher: a stale reading is read again once, whichever instance quotes", async () => {
    redis = testRedis();
    const store = () => createRedisStore({ redis: redis.connect(), prefix: redis.prefix });
    const one = await harness.setup({ store: store() });
    const two = await harness.setup({ store: store() });
    const userinfoCalls = () =>
      one.sandbox.calls("userinfo.get").length + two.sandbox.calls("userinfo.get").length;
    await quote(one, `energy ${freshAddress()} 65k`);
    expect(userinfoCalls()).toBe(1);
    one.clock.advance(16_000);
    two.clock.advance(16_000);
    // A slow service keeps the refresh running while both instances quote.
    one.sandbox.inject("userinfo.get", { kind: "delay", ms: 200 });
    two.sandbox.inject("userinfo.get", { kind: "delay", ms: 200 });
    const replies = await Promise.all(
      [one, two, one, two].map((h) => quote(h, `energy ${freshAddress()} 65k`).then((q) => q.reply)),
    );
    for (const reply of replies) expect(replyText(reply)).toContain("Balance: ≈ 500 TRX, read 16 s ago");
    await one.waitFor(() => userinfoCalls() === 2, "the refresh");
    await two.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(userinfoCalls()).toBe(2);
    // Both instances now quote from the new reading.
    for (const h of [one, two]) {
      expect(replyText((await quote(h, `energy ${freshAddress()} 65k`)).reply)).toContain(
        "Balance: 500 TRX, covers it",
      );
    }
    expect(userinfoCalls()).toBe(2);
  });
});
