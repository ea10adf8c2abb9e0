import { describe, expect, it } from "vitest";
import { alertOfSubject, readAlert } from "../../../src/core/alerts/index.js";
import { readAudit } from "../../../src/core/audit-log.js";
import type { WatchSettings } from "../../../src/core/deps.js";
import { onBlocked } from "../../../src/core/features.js";
import { ACTIVE_HOSTS_KEY } from "../../../src/core/host/index.js";
import type { Reply } from "../../../src/core/reply.js";
import { watchTick } from "../../../src/core/watch/tick.js";
import { createRateLimiter } from "../../../src/service/limiter.js";
import { RATE_BUCKETS } from "../../../src/service/rate-limits.js";
import {
  advanceToEarlyMonth,
  channel,
  operator,
  replyButtons,
  replyText,
  viewer,
} from "../../support/core-harness.js";
import { baseSettings } from "../../support/settings.js";
import {
  freshAddress,
  quote,
  type SpendHarness,
  tokenOf,
  useSpendHarness,
} from "../../support/spend-harness.js";

/**
 * Watchlists over the real core: the sandbox over HTTP (its deny list changed at run time), the
 * memory store, the real notifier and job queue. A tick is the poller's job body, run directly,
 * so each step of the deny-list watch is visible.
 */
const spend = useSpendHarness();
const ALERTS = [{ platform: "slack" as const, id: "C0ALERT" }];

async function setup(watch: Partial<WatchSettings> = {}): Promise<SpendHarness> {
  return spend.setup({ settings: { watch: { ...baseSettings.watch, ...watch } } });
}

const alerts = (h: SpendHarness, pattern: RegExp = /Watchlist/): string[] =>
  h.notifications.map((n) => replyText(n.reply)).filter((t) => pattern.test(t));

/** A valid-looking address with its last character changed: the checksum fails. */
const brokenChecksum = (address: string): string =>
  address.slice(0, -1) + (address.endsWith("a") ? "b" : "a");

describe("watch add / list / remove", () => {
  it("adds with a label, lists it with who, since, the verdict and the last check, removes it", async () => {
    const h = await setup();
    const address = freshAddress("watch");
    const added = replyText(await h.run(operator, `watch add ${address} hot wallet`));
    expect(added).toContain("Watching hot wallet");
    expect(added).toContain("Deny list now: clean");
    const listed = replyText(await h.run(viewer, "watch list"));
    expect(listed).toContain("Watched here: 1 address");
    expect(listed).toMatch(
      new RegExp(`${address} hot wallet — clean; by slack:U0OPER since .*; last check `),
    );
    expect(replyText(await h.run(operator, `watch remove ${address}`))).toContain(
      `Stopped watching hot wallet`,
    );
    expect(replyText(await h.run(viewer, "watch list"))).toContain("Nothing is watched");
  });

  it("refuses a non-TRON address and a broken checksum with one line, and stores nothing", async () => {
    const h = await setup();
    const bad = await h.run(operator, "watch add 0x52908400098527886E0F7030069857D2E4169EE7 treasury");
    expect(bad.visibility).toBe("private");
    expect(replyText(bad)).toMatch(/is not a TRON address \(it does not start with T\)/);
    const typo = await h.run(operator, `watch add ${brokenChecksum(freshAddress("watch"))}`);
    expect(replyText(typo)).toMatch(/checksum failed/);
    expect(replyText(await h.run(operator, "watch list"))).toContain("Nothing is watched");
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
  });

  it("lets a viewer list but not add or remove", async () => {
    const h = await setup();
    const address = freshAddress("watch");
    expect(replyText(await h.run(viewer, `watch add ${address}`))).toMatch(
      /watch add needs the operator role/,
    );
    expect(await h.store.setMembers("watch:all")).toEqual([]);
  });

  it("pages the list above 20", async () => {
    const h = await setup();
    for (let i = 0; i < 23; i += 1) await h.run(operator, `watch add ${freshAddress("page")} w${i}`);
    const first = replyText(await h.run(viewer, "watch list"));
    expect(first).toContain("Watched here: 23 addresses");
    expect(first).toContain("Page 1 of 2");
    expect(first.match(/— clean/g)).toHaveLength(20);
    const second = replyText(await h.run(viewer, "watch list 2"));
    expect(second.match(/— clean/g)).toHaveLength(3);
  });
});

describe("watch add with a list", () => {
  it("adds 2500 addresses in one command: 3 batch lookups, no open lookup, each listed, a change alerted once", async () => {
    const h = await setup();
    const addresses = Array.from({ length: 2_500 }, (_, i) => freshAddress(`list-${i}`));
    h.sandbox.screening.setCategory(addresses[7]!, "usdt_frozen");
    const reply = await h.run(operator, `watch add ${addresses.join(" ")}`);
    const said = replyText(reply);
    expect(reply.visibility).toBe("public");
    expect(said).toContain("Watching 2500 addresses in this conversation (2500 new, 0 already watched)");
    expect(said).toContain("Deny list now: 2499 clean, 1 listed");
    expect(said).toContain(`${addresses[7]} usdt_frozen`);
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(3);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
    expect((await h.store.setMembers("watch:all")).sort()).toEqual([...addresses].sort());
    expect(replyText(await h.run(viewer, "watch list"))).toContain("Watched here: 2500 addresses");

    // The baselines were stored: a change after them is posted once, into this conversation.
    h.sandbox.screening.setCategory(addresses[42]!, "aml_risk");
    h.sandbox.screening.bumpRevision();
    await watchTick(h.deps, ALERTS, onBlocked);
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(alerts(h)).toHaveLength(1);
    expect(alerts(h)[0]).toContain("is now on the deny list: aml_risk (was clean)");
    expect(h.notifications[0]?.conversation).toEqual(channel);
  });

  it("takes commas and new lines, keeps what a watch already had, and counts repeats once", async () => {
    const h = await setup();
    const [a, b, c] = [freshAddress("list-a"), freshAddress("list-b"), freshAddress("list-c")];
    await h.run(operator, `watch add ${a} cold wallet`);
    const said = replyText(await h.run(operator, `watch add ${a},${b}\n${c} ${b}`));
    expect(said).toContain("Watching 3 addresses in this conversation (2 new, 1 already watched)");
    const listed = replyText(await h.run(viewer, "watch list"));
    expect(listed).toContain("Watched here: 3 addresses");
    expect(listed).toContain(`${a} cold wallet — clean`);
  });

  it("refuses the whole list for one bad address, naming it, and a viewer's list; nothing stored or asked", async () => {
    const h = await setup();
    const good = freshAddress("list-good");
    const typo = brokenChecksum(freshAddress("list-typo"));
    const bad = await h.run(operator, `watch add ${good} ${freshAddress("list-2")} ${typo}`);
    expect(bad.visibility).toBe("private");
    expect(replyText(bad)).toMatch(/^address 3 of the list: .*checksum failed.*; nothing was added$/);
    expect(replyText(await h.run(viewer, `watch add ${good} ${freshAddress("list-3")}`))).toMatch(
      /watch add needs the operator role/,
    );
    expect(await h.store.setMembers("watch:all")).toEqual([]);
    expect(h.sandbox.calls("compliance.batch")).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toEqual([]);
  });
});

describe("deny-list watch", () => {
  it("posts a change once, with category, severity, reason code and label; nothing when nothing changed", async () => {
    const h = await setup();
    const address = freshAddress("watch");
    await h.run(operator, `watch add ${address} payouts`);
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.bumpRevision();
    await watchTick(h.deps, ALERTS, onBlocked);
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(alerts(h)).toEqual([]);
    expect(h.sandbox.calls("compliance.batch").length).toBeGreaterThan(0);

    h.sandbox.screening.setCategory(address, "aml_risk", {
      severity: "BLOCK",
      reason_code: "OFAC_SDN",
      label: "OFAC SDN list",
    });
    await watchTick(h.deps, ALERTS, onBlocked);
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.bumpRevision();
    await watchTick(h.deps, ALERTS, onBlocked);
    const posted = alerts(h);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain("is now on the deny list: aml_risk (was clean)");
    expect(posted[0]).toContain("Now: aml_risk (BLOCK, OFAC_SDN: OFAC SDN list)");
    expect(posted[0]).toContain("Label: payouts");
    expect(h.notifications[0]?.conversation).toEqual(channel);

    h.sandbox.screening.setCategory(address, "clean");
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(alerts(h)).toHaveLength(2);
    expect(alerts(h)[1]).toContain("is off the deny list: clean (was aml_risk)");
  });

  it("re-runs the same change after a lost verdict write without posting it twice", async () => {
    const h = await setup();
    const address = freshAddress("watch");
    await h.run(operator, `watch add ${address}`);
    h.sandbox.screening.setCategory(address, "usdt_frozen");
    await watchTick(h.deps, ALERTS, onBlocked);
    // As if the process died after the alert was queued, before the verdict and revision were stored.
    await h.store.hashSet(
      "watch:verdict",
      address,
      JSON.stringify({ category: "clean", blocked: false, since: 0, seq: 0 }),
    );
    await h.store.del("watch:state");
    await watchTick(h.deps, ALERTS, onBlocked);
    await h.settle();
    expect(h.delivered.filter((d) => /usdt_frozen/.test(replyText(d.reply)))).toHaveLength(1);
  });

  it("refuses a pending energy quote's Confirm once its address is on the deny list", async () => {
    const h = await setup();
    const address = freshAddress("watch");
    await h.run(operator, `watch add ${address}`);
    const { confirm } = await quote(h, `energy ${address} 65k`);
    h.sandbox.screening.setCategory(address, "usdt_frozen");
    await watchTick(h.deps, ALERTS, onBlocked);
    const text = replyText(await h.click(operator, confirm));
    expect(text).toContain("now on the deny list");
    expect(text).toContain("usdt_frozen");
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect((await readAudit(h.store, 1))[0]).toMatchObject({ verb: "energy", result: "failed" });
  });

  it("answers a Confirm at once when the open lookup has no free slot; the next tick takes the first verdict in a batch", async () => {
    // One open lookup a minute: the quote's deny-list check takes it.
    let later = 0;
    // Every wait the limiter asks for; waiting moves the clock, so a wait would end at once.
    const waits: number[] = [];
    const limiter = createRateLimiter({
      keyPrefix: "test:",
      now: () => Date.now() + later,
      sleep: async (ms) => {
        waits.push(ms);
        later += ms;
      },
      windows: { ...RATE_BUCKETS, compliance_open: [{ points: 1, durationMs: 60_000 }] },
    });
    const h = await spend.setup({ settings: { watch: baseSettings.watch }, client: { limiter } });
    // A first tick: the deny list is re-checked, so the next tick has no full re-check to do.
    await watchTick(h.deps, ALERTS, onBlocked);
    later = 61_000;
    const address = freshAddress("auto-busy");
    const { confirm } = await quote(h, `energy ${address} 65k`);
    const lookups = h.sandbox.calls("compliance.lookup").length;
    await h.click(operator, confirm);
    // The answer did not wait for the open lookup's next slot, nor take it.
    expect(waits).toEqual([]);
    expect(h.sandbox.calls("compliance.lookup")).toHaveLength(lookups);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(replyText(await h.run(viewer, "watch list"))).toMatch(new RegExp(`${address} — not checked yet`));

    // The tick's own open call (the deny list's revision) finds the minute over.
    later = 122_000;
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(replyText(await h.run(viewer, "watch list"))).toMatch(new RegExp(`${address} — clean; by auto`));
    // One batch call is the Confirm's live deny-list check (200/s per key, never the open
    // lookup's slot), the other the tick's first verdict for the new watch.
    expect(h.sandbox.calls("compliance.batch")).toHaveLength(2);
    expect(alerts(h)).toEqual([]);
  });

  it("watches an address that received energy through the bot, unless OPS_AUTO_WATCH=false", async () => {
    const h = await setup();
    const address = freshAddress("auto");
    await h.click(operator, (await quote(h, `energy ${address} 65k`)).confirm);
    expect(replyText(await h.run(viewer, "watch list"))).toMatch(new RegExp(`${address} — clean; by auto`));

    const off = await setup({ autoWatch: false });
    const other = freshAddress("auto");
    await off.click(operator, (await quote(off, `energy ${other} 65k`)).confirm);
    expect(off.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(replyText(await off.run(viewer, "watch list"))).toContain("Nothing is watched");
  });
});

async function hostStarted(h: SpendHarness): Promise<string> {
  const address = freshAddress("host");
  const started = await h.click(operator, (await quote(h, `host start ${address}`)).confirm);
  expect(replyText(started)).toContain("Host Mode started");
  expect(await h.store.setMembers(ACTIVE_HOSTS_KEY)).toContain(address);
  return address;
}

describe("Host Mode guard", () => {
  it("alerts with a Stop Host Mode button that stops it through the host stop path", async () => {
    const h = await setup();
    const address = await hostStarted(h);
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.setCategory(address, "usdt_frozen");
    await watchTick(h.deps, ALERTS, onBlocked);
    const alert = h.notifications.find((n) => /usdt_frozen/.test(replyText(n.reply)))?.reply as Reply;
    expect(replyText(alert)).toContain("This address is in Host Mode");
    expect(h.sandbox.calls("host.stop")).toEqual([]);
    const stopped = replyText(await h.click(operator, tokenOf(alert, "Stop Host Mode")));
    expect(stopped).toContain(`Host Mode stopped for ${address}`);
    expect(h.sandbox.calls("host.stop")).toHaveLength(1);
    expect(await h.store.setMembers(ACTIVE_HOSTS_KEY)).not.toContain(address);
    // The alert is answered: resolved by the stop, which its history names (its messages are edited
    // in place as for any cleared alert).
    const resolved = await readAlert(h.store, (await alertOfSubject(h.store, "host.blocked", address)) ?? "");
    expect(resolved?.state).toBe("resolved");
    expect(resolved?.history.at(-1)).toMatchObject({
      what: "cleared",
      note: "Host Mode stopped by slack:U0OPER",
    });
    expect((await readAudit(h.store, 1))[0]).toMatchObject({
      verb: "host stop",
      result: "ok",
      actor: "slack:U0OPER",
    });
  });

  it("with OPS_HOST_AUTOSTOP stops it itself, says so and audits it, once", async () => {
    const h = await setup({ hostAutostop: true });
    const address = await hostStarted(h);
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.setCategory(address, "smart_contract");
    await watchTick(h.deps, ALERTS, onBlocked);
    h.sandbox.screening.bumpRevision();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(h.sandbox.calls("host.stop")).toHaveLength(1);
    const posted = alerts(h);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain("Host Mode was stopped automatically (OPS_HOST_AUTOSTOP)");
    // No Stop Host Mode button: only the alert's own Ack / Snooze 1h / Resolve.
    expect(replyButtons(h.notifications[h.notifications.length - 1]!.reply).map((b) => b.label)).toEqual([
      "Ack",
      "Snooze 1h",
      "Resolve",
    ]);
    expect((await readAudit(h.store, 1))[0]).toMatchObject({
      verb: "host stop",
      result: "ok",
      actor: "slack:watchlist",
      address,
    });
  });
});

describe("AML re-screening", () => {
  it("is refused without a budget, and stops with the watch's removal", async () => {
    const off = await setup();
    const address = freshAddress("screen");
    expect(replyText(await off.run(operator, `watch add ${address} screen weekly`))).toContain(
      "AML re-screening is off: OPS_WATCH_BUDGET_TRX is not set",
    );
    expect(await off.store.setMembers("watch:all")).toEqual([]);

    const h = await setup({ budgetTrx: "100" });
    await h.run(operator, `watch add ${address} screen weekly`);
    await h.run(operator, `watch remove ${address}`);
    h.clock.advance(8 * 24 * 3_600_000);
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(h.sandbox.calls("screening.create")).toEqual([]);
  });

  it("re-screens when due, alerts on a score rise, and pauses with one notice when the budget is used", async () => {
    // Two re-screens at the sandbox's price fit; the third does not.
    const h = await setup({ budgetTrx: "8" });
    advanceToEarlyMonth(h.clock);
    const address = freshAddress("screen");
    expect(replyText(await h.run(operator, `watch add ${address} vendor screen daily`))).toContain(
      "AML re-screened daily",
    );
    const day = 24 * 3_600_000;
    let sandboxNow = h.sandboxTime.now();
    // Both clocks move a day: the sandbox would answer a repeat within 60 s from its cache.
    const nextDay = () => {
      h.clock.advance(day);
      sandboxNow += day;
      h.sandboxTime.set(new Date(sandboxNow).toISOString());
    };
    h.sandbox.screening.setResult(address, { score: "1.0", selfSanctioned: false, exposure: [] });
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(h.sandbox.calls("screening.create")).toHaveLength(1);
    h.sandbox.screening.setResult(address, { score: "6.5", selfSanctioned: false, exposure: [] });
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(h.sandbox.calls("screening.create")).toHaveLength(2);
    const rise = alerts(h, /re-screen/);
    expect(rise).toHaveLength(1);
    expect(rise[0]).toContain("level low → medium; score 1.00 → 6.50");
    expect(rise[0]).toContain("Score and level: 1.00/10 low → 6.50/10 medium");
    expect(replyText(await h.run(viewer, "watch list"))).toMatch(
      /Re-screening budget: [\d.]+ of 8 TRX used this month/,
    );
    expect((await readAudit(h.store, 5)).filter((e) => e.verb === "watch rescreen")).toHaveLength(2);

    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    nextDay();
    await watchTick(h.deps, ALERTS, onBlocked);
    expect(h.sandbox.calls("screening.create")).toHaveLength(2);
    const told = h.notifications.filter((n) => /budget is used up/.test(replyText(n.reply)));
    expect(told).toHaveLength(1);
    expect(told[0]?.conversation).toEqual(ALERTS[0]);
  });
});
