import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { hostPaused } from "../../../src/core/host/host-notifications.js";
import { hostUnknownYetLine } from "../../../src/core/host/reconcile-host-start.js";
import { findOrigin } from "../../../src/core/origins.js";
import type { Reply } from "../../../src/core/reply.js";
import { spentTodaySun } from "../../../src/core/spend/spend-guard.js";
import { SUN_PER_TRX } from "../../../src/sandbox/accounts.js";
import { channel, operator, replyButtons, replyText } from "../../support/core-harness.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";

/**
 * A Host Mode start whose answer was lost (the connection dropped, a 5xx, no answer in time):
 * the user is told once that the outcome is not known yet, the reconciler asks infinitystart
 * again (the spec's state machine makes that safe) and posts the outcome once, in place of the
 * quote, with the first cycle counted once (or the hold released), the audit, and the origin of
 * the cycle callbacks.
 */
const spend = useSpendHarness();
/** The message that carried the Start button (Slack ts): the outcome replaces it. */
const QUOTE_TS = "1700000000.000100";
const FIRST_CYCLE_SUN = 4 * SUN_PER_TRX;

async function startWithLostAnswer(h: SpendHarness, lose: () => void, address = freshAddress("host-rec")) {
  const { confirm } = await quote(h, `host start ${address}`);
  lose();
  const reply = await h.core.handle({
    kind: "action",
    actor: operator,
    conversation: channel,
    token: confirm,
    messageId: QUOTE_TS,
  });
  return { address, reply };
}

/** What the reconciler posted for this start (its dedup key names the confirmation). */
const reconciled = (h: SpendHarness) => h.notifications.filter((n) => n.dedupKey?.startsWith("reconciled:"));

async function outcomeOf(h: SpendHarness): Promise<Reply> {
  await h.waitFor(() => reconciled(h).length > 0, "the reconciled outcome");
  await h.settle();
  expect(reconciled(h)).toHaveLength(1);
  const [posted] = reconciled(h);
  expect(posted?.conversation).toEqual(channel);
  return posted!.reply;
}

const spent = (h: SpendHarness) => spentTodaySun(h.store, operator, h.clock.now).then((s) => s.toNumber());

describe("host start: a lost answer is reconciled", () => {
  it("the start went through but its answer was lost: not known yet once, then 'active' in place of the quote, counted once", async () => {
    const h = await spend.setup();
    const { address, reply } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.infinitystart", { kind: "lost" }),
    );
    expect(replyText(reply)).toBe(hostUnknownYetLine(address));
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("active");

    const outcome = await outcomeOf(h);
    expect(outcome.replaces).toBe(QUOTE_TS);
    expect(replyText(outcome)).toContain(
      `Host Mode is active for ${address}: the start sent for this confirmation went through`,
    );
    expect(replyText(outcome)).not.toContain("not known");
    // Time Status confirms it, and the outcome offers Status like any start message.
    expect(replyText(outcome)).toContain("Confirmed by Time Status: active, infinity");
    expect(replyButtons(outcome).map((b) => b.label)).toEqual(["Status"]);
    // Asked once more: the service answered -5 (already active), no second infinity order.
    expect(h.sandbox.calls("host.infinitystart").map((c) => c.status)).toEqual([-1, 200]);
    expect(h.sandbox.energy.hostAddresses().filter((e) => e.address === address)).toHaveLength(1);
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
    // Cycle callbacks go to the thread of the message that showed the start.
    expect(await findOrigin(h.store, "host", address)).toEqual({ ...channel, threadId: QUOTE_TS });
    const [audit] = await readAudit(h.store, 1);
    expect(audit).toMatchObject({ verb: "host start", address, result: "ok" });
    expect(h.delivered.filter((d) => replyText(d.reply).includes("not known"))).toEqual([]);
  });

  it("the first start never reached the service: the repeat starts it (code 0) and names the order", async () => {
    const h = await spend.setup();
    const { address, reply } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.infinitystart", { kind: "reset" }),
    );
    expect(replyText(reply)).toBe(hostUnknownYetLine(address));
    const outcome = await outcomeOf(h);
    const entry = h.sandbox.energy.hostAddress(address);
    expect(entry?.status).toBe("active");
    expect(replyText(outcome)).toContain("Host Mode started");
    expect(replyText(outcome)).toContain(`Order: ${entry?.orderId}`);
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
    const [audit] = await readAudit(h.store, 1);
    expect(audit).toMatchObject({ result: "ok", orderIds: [String(entry?.orderId)] });
  });

  it("a 5xx, then -1 (internal error): asked again until the service answers", async () => {
    const h = await spend.setup();
    const { address } = await startWithLostAnswer(h, () => {
      h.sandbox.inject("host.infinitystart", {
        kind: "lost",
        reply: { status: 502, json: { detail: "Bad Gateway" } },
      });
      h.sandbox.inject("host.infinitystart", {
        kind: "reply",
        reply: { status: 200, json: { code: -1, msg: "Internal server error", data: null } },
      });
    });
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain(`Host Mode is active for ${address}`);
    expect(h.sandbox.calls("host.infinitystart").map((c) => c.status)).toEqual([502, 200, 200]);
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
  });

  it("-2 on the repeat: not started, nothing charged, the hold given back", async () => {
    const h = await spend.setup();
    const { address } = await startWithLostAnswer(h, () => {
      h.sandbox.inject("host.infinitystart", { kind: "reset" });
      h.sandbox.energy.setHostStartRequirement(600 * SUN_PER_TRX);
    });
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain("Not started: not enough balance to start Host Mode");
    expect(replyText(outcome)).toContain("Nothing was charged.");
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
    expect(await spent(h)).toBe(0);
    const [audit] = await readAudit(h.store, 1);
    expect(audit).toMatchObject({ verb: "host start", address, result: "failed" });
  });

  it("a lost registration (add) is sent again, then Host Mode is started", async () => {
    const h = await spend.setup();
    const { address, reply } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.add", { kind: "lost" }),
    );
    expect(replyText(reply)).toContain(`The service did not answer while registering ${address}`);
    expect(h.sandbox.calls("host.infinitystart")).toEqual([]);
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain("Host Mode started");
    expect(h.sandbox.calls("host.add")).toHaveLength(2);
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(1);
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
  });

  it("no answer for a day: the bot stops asking and says what to do (never 'not known yet' as the last word)", async () => {
    const h = await spend.setup();
    const internal = { status: 200, json: { code: -1, msg: "Internal server error", data: null } };
    const { address } = await startWithLostAnswer(h, () => {
      h.sandbox.inject("host.infinitystart", { kind: "reset" });
      h.sandbox.inject("host.infinitystart", { kind: "reply", reply: internal }, 1_000);
    });
    await h.waitFor(() => h.sandbox.calls("host.infinitystart").length >= 3, "two repeats");
    const confirmedAt = h.clock.now();
    h.clock.advance(24 * 60 * 60_000);
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain(
      `The service did not say within 24 hours whether Host Mode started for ${address}, so the bot stopped asking.`,
    );
    expect(replyText(outcome)).toContain(`host stop ${address}`);
    // The hold stays on the day of the confirmation: Host Mode may run.
    const thatDay = await spentTodaySun(h.store, operator, () => confirmedAt);
    expect(thatDay.toNumber()).toBe(FIRST_CYCLE_SUN);
  });
});

describe("host start reconciling meets a host stop", () => {
  it("stopped before the repeat, nothing was running: the bot stops asking; not started, nothing charged", async () => {
    const h = await spend.setup({ timeScale: 1 });
    const { address } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.infinitystart", { kind: "reset" }),
    );
    const stopped = await h.run(operator, `host stop ${address}`);
    expect(replyText(stopped)).toContain("(code -7)");
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain(
      `Not started: host stop ${address} ran before the service said whether this start went through`,
    );
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(1);
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
    expect(await spent(h)).toBe(0);
  });

  it("stopped before the repeat, the start had gone through: the bot says host stop ended it and counts the cycle", async () => {
    const h = await spend.setup({ timeScale: 1 });
    const { address } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.infinitystart", { kind: "lost" }),
    );
    expect(replyText(await h.run(operator, `host stop ${address}`))).toContain("1 open order closed");
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain(`Host Mode for ${address} had started, and host stop ended it`);
    // Not started again after the stop.
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(1);
    expect(h.sandbox.energy.hostAddress(address)?.status).toBe("inactive");
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
  });
});

describe("host start reconciling meets a pause from the service", () => {
  it("host_paused before the repeat: the bot does not start it again, says it ran and was paused, counts the cycle", async () => {
    const h = await spend.setup({ timeScale: 1 });
    const { address } = await startWithLostAnswer(h, () =>
      h.sandbox.inject("host.infinitystart", { kind: "lost" }),
    );
    // Stopped outside this bot (the website, another client): the service's pause callback arrives.
    await hostPaused.onReceipt?.(h.deps, {
      event: "host_paused",
      address,
      reason: "stopped",
      timestamp: String(h.clock.now()),
    });
    const outcome = await outcomeOf(h);
    expect(replyText(outcome)).toContain(
      `Host Mode for ${address} had started, and the service then paused it (stopped)`,
    );
    // Not started again over the pause.
    expect(h.sandbox.calls("host.infinitystart")).toHaveLength(1);
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
  });
});

describe("host start reconciling meets a crash before the 'not known yet' line was delivered", () => {
  it("the recovery job posts the reconciled outcome, not the stale line", async () => {
    const h = await spend.setup({ settings: { intents: { recoverAfterMs: 5_000, leaseMs: 150 } } });
    const address = freshAddress("host-rec");
    const { confirm } = await quote(h, `host start ${address}`);
    h.sandbox.inject("host.infinitystart", { kind: "lost" });
    // The adapter never confirms the delivery (the process died after the run).
    const reply = await h.core.handle(
      { kind: "action", actor: operator, conversation: channel, token: confirm, messageId: QUOTE_TS },
      { confirmsDelivery: true },
    );
    expect(replyText(reply)).toBe(hostUnknownYetLine(address));
    const recovered = () => h.notifications.filter((n) => n.dedupKey?.startsWith("intent-outcome:"));
    await h.waitFor(
      () => recovered().length > 0 && reconciled(h).length > 0,
      "the recovery and the reconciler",
    );
    await h.settle();
    for (const posted of [...recovered(), ...reconciled(h)]) {
      expect(posted.reply.replaces).toBe(QUOTE_TS);
      expect(replyText(posted.reply)).toContain(`Host Mode is active for ${address}`);
    }
    expect(await spent(h)).toBe(FIRST_CYCLE_SUN);
  });
});

describe("host start reconciling outruns the delivery of 'not known yet'", () => {
  it("the line lands after the outcome (a slow platform): the outcome is posted again after it, in the quote's place", async () => {
    const h = await spend.setup();
    const address = freshAddress("host-rec");
    const { confirm } = await quote(h, `host start ${address}`);
    h.sandbox.inject("host.infinitystart", { kind: "lost" });
    const reply = await h.core.handle(
      { kind: "action", actor: operator, conversation: channel, token: confirm, messageId: QUOTE_TS },
      { confirmsDelivery: true },
    );
    expect(replyText(reply)).toBe(hostUnknownYetLine(address));
    await h.waitFor(() => reconciled(h).length > 0, "the reconciled outcome");
    // Only now does the platform take the "not known yet" line.
    await h.core.delivered(reply);
    const last = h.notifications.at(-1);
    expect(last?.dedupKey).toMatch(/^intent-outcome:/);
    expect(last?.reply.replaces).toBe(QUOTE_TS);
    expect(replyText(last!.reply)).toContain(`Host Mode is active for ${address}`);
  });
});
