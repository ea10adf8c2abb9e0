import { describe, expect, it } from "vitest";
import { listAlerts } from "../../../src/core/alerts/commands.js";
import type { WatchSettings } from "../../../src/core/deps.js";
import { createWatchDeliveryHandler, deliveryConfirmed } from "../../../src/core/energy/delivery-watch.js";
import { onBlocked } from "../../../src/core/features.js";
import { ACTIVE_HOSTS_KEY } from "../../../src/core/host/index.js";
import type { Reply } from "../../../src/core/reply.js";
import { watchTick } from "../../../src/core/watch/tick.js";
import {
  advanceToEarlyMonth,
  channel,
  operator,
  replyButtons,
  replyText,
} from "../../support/core-harness.js";
import { baseSettings } from "../../support/settings.js";
import { freshAddress, quote, type SpendHarness, useSpendHarness } from "../../support/spend-harness.js";
import { stubDeps } from "../support.js";

/**
 * Each kind of alert the bot raises today, from its own source over the real core (the sandbox
 * over HTTP, the real notifier and job queue): each carries Ack / Snooze 1h / Resolve beside what
 * it offered before, and is listed by `alerts`.
 */
const spend = useSpendHarness();
const ALERTS = [{ platform: "slack" as const, id: "C0ALERT" }];
const OWN = ["Ack", "Snooze 1h", "Resolve"];
const labels = (reply: Reply | undefined) => (reply ? replyButtons(reply).map((b) => b.label) : []);

const setup = (watch: Partial<WatchSettings> = {}): Promise<SpendHarness> =>
  spend.setup({ settings: { watch: { ...baseSettings.watch, ...watch } } });

const notice = (h: SpendHarness, pattern: RegExp): Reply | undefined =>
  h.notifications.find((n) => pattern.test(replyText(n.reply)))?.reply;

describe("every alert kind carries the alert's buttons", () => {
  it("a watched address's verdict change, and Host Mode of a blocked address (Stop kept)", async () => {
    const h = await setup();
    const watched = freshAddress("kinds");
    await h.run(operator, `watch add ${watched} payouts`);
    const hosted = freshAddress("kinds-host");
    await h.click(operator, (await quote(h, `host start ${hosted}`)).confirm);
    expect(await h.store.setMembers(ACTIVE_HOSTS_KEY)).toContain(hosted);
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.setCategory(watched, "aml_risk");
    h.sandbox.screening.setCategory(hosted, "usdt_frozen");
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(labels(notice(h, /payouts \(.*\) is now on the deny list: aml_risk/))).toEqual(OWN);
    expect(labels(notice(h, new RegExp(`${hosted} is now on the deny list: usdt_frozen`)))).toEqual([
      "Stop Host Mode",
      ...OWN,
    ]);
    const kinds = (await listAlerts(h.deps, false)).map((a) => a.kind).sort();
    expect(kinds).toEqual(["host.blocked", "watch.verdict"]);

    // Off the deny list again: the first alert is resolved by the bot, in place.
    h.sandbox.screening.setCategory(watched, "clean");
    h.sandbox.screening.bumpRevision();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect((await listAlerts(h.deps, false)).map((a) => a.kind).sort()).toEqual([
      "host.blocked",
      "watch.verdict",
    ]);
    const all = await listAlerts(h.deps, true);
    expect(all.find((a) => a.state === "resolved")?.history.at(-1)).toMatchObject({
      what: "cleared",
      note: "off the deny list: clean",
    });
  });

  it("a re-screen's score rise and the used-up re-screen budget", async () => {
    const h = await setup({ budgetTrx: "8" });
    advanceToEarlyMonth(h.clock);
    const address = freshAddress("kinds-screen");
    await h.run(operator, `watch add ${address} vendor screen daily`);
    let sandboxNow = h.sandboxTime.now();
    const nextDay = () => {
      h.clock.advance(24 * 3_600_000);
      sandboxNow += 24 * 3_600_000;
      h.sandboxTime.set(new Date(sandboxNow).toISOString());
    };
    h.sandbox.screening.setResult(address, { score: "1.0" });
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.setResult(address, { score: "6.5" });
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(labels(notice(h, /re-screen/))).toEqual(OWN);
    expect(labels(notice(h, /budget is used up/))).toEqual(OWN);
    expect((await listAlerts(h.deps, false)).map((a) => a.kind).sort()).toEqual([
      "watch.budget",
      "watch.rescreen",
    ]);
  });

  it("a delivery not confirmed in time; its late confirmation clears it", async () => {
    const deps = stubDeps();
    const job = {
      kind: "watch-delivery" as const,
      orderId: "5MLATE",
      address: freshAddress("late"),
      conversation: channel,
    };
    await createWatchDeliveryHandler(deps)(job);
    expect(labels(deps.posted[0]?.reply)).toEqual(OWN);
    expect(deps.posted[0]?.reply.alert).toMatch(/^Delivery not confirmed after 10 min/);
    const [alert] = await listAlerts(deps, false);
    expect(alert?.kind).toBe("delivery.unconfirmed");
    await deliveryConfirmed(deps, "5MLATE");
    expect(await listAlerts(deps, false)).toEqual([]);
  });
});

describe("escalation and snooze through the job system (delays scaled, never real minutes)", () => {
  const ESCALATE_MS = 15 * 60_000;
  it("an unacknowledged alert is escalated once, after OPS_ESCALATE_MIN; an acknowledged one never", async () => {
    // 15 min × 0.0004 = 360 ms; 1 h of snooze = 1.44 s.
    const h = await spend.setup({
      timeScale: 0.0004,
      settings: { alerts: { escalateMs: ESCALATE_MS, oncall: ["slack:U0ONCALL"] } },
    });
    const job = (orderId: string) => ({
      kind: "watch-delivery" as const,
      orderId,
      address: freshAddress("esc"),
      conversation: channel,
    });
    await createWatchDeliveryHandler(h.deps)(job("5MESC1"));
    await createWatchDeliveryHandler(h.deps)(job("5MESC2"));
    const raised = await listAlerts(h.deps, false);
    const first = raised.find((a) => a.subject.id === "5MESC1");
    const second = raised.find((a) => a.subject.id === "5MESC2");
    const ack = h.notifications.find((n) => n.reply.alertOf?.id === second?.id)?.reply;
    await h.click(operator, replyButtons(ack as Reply).find((b) => b.label === "Ack")?.token ?? "");
    await h.waitFor(
      () => h.notifications.some((n) => /has been open for/.test(replyText(n.reply))),
      "the escalation",
    );
    await h.settle();
    const escalations = h.notifications.filter((n) => /has been open for/.test(replyText(n.reply)));
    expect(escalations).toHaveLength(1);
    expect(replyText(escalations[0]!.reply)).toContain("5MESC1");
    expect(h.scheduled.filter((s) => s.job.kind === "alert-escalate").map((s) => s.options)).toEqual([
      { delayMs: ESCALATE_MS, jobId: `alert-escalate:${first?.id}` },
      { delayMs: ESCALATE_MS, jobId: `alert-escalate:${second?.id}` },
    ]);
    // The Ack came before the job: the acknowledged alert's job ran and posted nothing.

    // Snoozed: back after the (scaled) hour, as a new message with its buttons.
    const snooze = h.notifications.find((n) => n.reply.alertOf?.id === first?.id)?.reply as Reply;
    await h.click(operator, replyButtons(snooze).find((b) => b.label === "Snooze 1h")?.token ?? "");
    await h.waitFor(
      () => h.notifications.some((n) => n.dedupKey?.startsWith(`alert:${first?.id}:reraise:`) === true),
      "the alert back after its snooze",
      10_000,
    );
    const back = h.notifications.find((n) => n.dedupKey?.startsWith(`alert:${first?.id}:reraise:`));
    expect(labels(back?.reply)).toEqual(OWN);
    expect((await listAlerts(h.deps, false)).find((a) => a.id === first?.id)?.state).toBe("open");
  });
});
