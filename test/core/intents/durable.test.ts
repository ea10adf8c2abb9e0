import { describe, expect, it } from "vitest";
import type { FaultPoint } from "../../../src/core/deps.js";
import { HANDED_OVER_LINE } from "../../../src/core/intents/durable.js";
import { recoverOpenIntents } from "../../../src/core/intents/index.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { channel, operator, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, useSpendHarness } from "../../support/spend-harness.js";

/**
 * Durable Confirms on the in-process job queue (the demo's): a run that stops after the claim,
 * or an outcome the adapter never delivered, is carried out and posted by the recovery job, once.
 */
const spend = useSpendHarness({ settings: { intents: { recoverAfterMs: 100, leaseMs: 100 } }, timeScale: 1 });
const DAY_COST_SUN = 48 * 65_000;
const OUTCOME = /Energy delegated|Energy order \(already placed\)/;

const outcomes = (h: Awaited<ReturnType<typeof spend.setup>>) =>
  h.notifications.filter((n) => OUTCOME.test(replyText(n.reply)));

const hangAt = (point: FaultPoint) => (at: FaultPoint) =>
  at === point ? new Promise<void>(() => {}) : Promise.resolve();

describe("durable Confirm (in-memory queue)", () => {
  it("a run that stopped right after the claim is carried out by the recovery job and posted once", async () => {
    const h = await spend.setup();
    const address = freshAddress("durable");
    const { confirm } = await quote(h, `energy ${address} 65k`);
    h.deps.faults = hangAt("after-claim");
    void h.click(operator, confirm);
    await h.waitFor(() => outcomes(h).length > 0, "the outcome posted by the recovery job");
    await new Promise((r) => setTimeout(r, 400));
    expect(outcomes(h)).toHaveLength(1);
    expect(outcomes(h)[0]?.conversation).toEqual(channel);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
  });

  it("an outcome the adapter never delivered is posted by the recovery job, without asking the service again", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress("durable")} 65k`);
    const reply = await h.core.handle(
      { kind: "action", actor: operator, conversation: channel, token: confirm },
      { confirmsDelivery: true },
    );
    expect(replyText(reply)).toContain("Energy delegated");
    await h.waitFor(() => outcomes(h).length > 0, "the outcome posted by the recovery job");
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(DAY_COST_SUN);
  });

  it("an outcome the adapter delivered is not posted again", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress("durable")} 65k`);
    const reply = await h.core.handle(
      { kind: "action", actor: operator, conversation: channel, token: confirm },
      { confirmsDelivery: true },
    );
    await h.core.delivered(reply);
    await new Promise((r) => setTimeout(r, 500));
    expect(outcomes(h)).toEqual([]);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });

  it("a click beyond the process's running confirmations is answered at once and carried out by a job, once", async () => {
    // The recovery job is far off: what places the second order is the handover job.
    const h = await spend.setup({
      settings: { intents: { recoverAfterMs: 60_000, leaseMs: 100, maxLocalRuns: 1 } },
    });
    const [first, second] = [freshAddress("handover-1"), freshAddress("handover-2")];
    const quotes = [await quote(h, `energy ${first} 65k`), await quote(h, `energy ${second} 65k`)];
    const replies = await Promise.all(
      quotes.map(({ confirm }) =>
        h.core.handle({ kind: "action", actor: operator, conversation: channel, token: confirm }),
      ),
    );
    expect(replies.map(replyText)).toEqual([expect.stringContaining("Energy delegated"), HANDED_OVER_LINE]);
    expect(replies[1]?.replacesOriginal).toBe(true);
    await h.waitFor(() => outcomes(h).length > 0, "the handed-over confirmation's outcome");
    await new Promise((r) => setTimeout(r, 400));
    expect(outcomes(h)).toHaveLength(1);
    expect(replyText(outcomes(h)[0]!.reply)).toContain(second);
    const orders = h.sandbox.energy.orders();
    expect([first, second].map((a) => orders.filter((o) => o.receiveAddress === a).length)).toEqual([1, 1]);
    expect((await spentTodaySun(h.store, operator, h.clock.now)).toNumber()).toBe(2 * DAY_COST_SUN);
  });

  it("acknowledges the click after the claim, before the order is sent", async () => {
    const h = await spend.setup();
    const { confirm } = await quote(h, `energy ${freshAddress("durable")} 65k`);
    let callsAtAck = -1;
    await h.core.handle(
      { kind: "action", actor: operator, conversation: channel, token: confirm },
      {
        acknowledge: async () => {
          callsAtAck = h.sandbox.calls("order5m.create").length;
        },
      },
    );
    expect(callsAtAck).toBe(0);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
  });
});

describe("recovery at start (issue 39, item 4)", () => {
  // The click's own recovery job is a minute off: only the recovery at start can carry these out.
  const far = { intents: { recoverAfterMs: 60_000, leaseMs: 100 } };
  const startJobs = (h: Awaited<ReturnType<typeof spend.setup>>) =>
    h.scheduled.filter((s) => s.job.kind === "recover-intent" && s.options.jobId.includes(":start:"));

  it("a confirmation whose run stopped is due at once when an instance starts, and carried out once", async () => {
    const h = await spend.setup({ settings: far });
    const address = freshAddress("at-start");
    const { confirm } = await quote(h, `energy ${address} 65k`);
    h.deps.faults = hangAt("after-claim");
    void h.click(operator, confirm);
    await h.waitFor(
      () => h.scheduled.some((s) => s.job.kind === "recover-intent"),
      "the click's recovery job",
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(await recoverOpenIntents(h.deps)).toBe(1);
    expect(startJobs(h).map((s) => s.options.delayMs)).toEqual([0]);
    await h.waitFor(() => outcomes(h).length > 0, "the outcome posted by the recovery at start");
    await new Promise((r) => setTimeout(r, 400));
    expect(outcomes(h)).toHaveLength(1);
    expect(h.sandbox.energy.orders().filter((o) => o.receiveAddress === address)).toHaveLength(1);
    // Posted: the next start finds nothing open.
    expect(await recoverOpenIntents(h.deps)).toBe(0);
  });

  it("a run still alive keeps its lease: the recovery at start neither runs it again nor posts", async () => {
    const h = await spend.setup({ settings: far });
    const address = freshAddress("at-start-live");
    const { confirm } = await quote(h, `energy ${address} 65k`);
    h.deps.faults = hangAt("after-answer");
    void h.click(operator, confirm);
    await h.waitFor(() => h.sandbox.calls("order5m.create").length === 1, "the live run's order");
    expect(await recoverOpenIntents(h.deps)).toBe(1);
    // Many lease lengths: the live holder renews it, the recovery job only looks again.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(outcomes(h)).toEqual([]);
  });
});
