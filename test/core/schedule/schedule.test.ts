import { describe, expect, it } from "vitest";
import { CLAIM_KEY } from "../../../src/core/actions.js";
import { readAudit } from "../../../src/core/audit-log.js";
import { onBlocked } from "../../../src/core/features.js";
import { isPosted } from "../../../src/core/intents/intent.js";
import type { TrackedJob } from "../../../src/core/ports.js";
import { ensureStandingOrders } from "../../../src/core/schedule/ensure.js";
import { createScheduleRunHandler, runConfirmationId } from "../../../src/core/schedule/occurrences.js";
import { watchTick } from "../../../src/core/watch/tick.js";
import { admin, operator, replyText, viewer } from "../../support/core-harness.js";
import {
  freshAddress,
  NOON,
  type SpendHarness,
  tokenOf,
  useSpendHarness,
} from "../../support/spend-harness.js";

/**
 * Standing orders over the real core: the sandbox over HTTP on a clock the test sets, the memory
 * store, the real job system. An occurrence's job is driven directly with the clock of the moment
 * it runs (never a real minute waited); the run then goes through the durable Confirm path
 * (the `recover-intent` job) and its outcome is posted in the schedule's thread.
 */
const spend = useSpendHarness();
type RunJob = Extract<TrackedJob, { kind: "schedule-run" }>;

async function setup(settings: Parameters<typeof spend.setup>[0] = {}): Promise<SpendHarness> {
  const h = await spend.setup(settings);
  h.clock.advance(Date.parse(NOON) - h.clock.now());
  return h;
}

/** `schedule energy …` confirmed by the operator: the created line and the first occurrence's job. */
async function create(h: SpendHarness, rest: string) {
  const quote = await h.run(operator, `schedule energy ${rest}`);
  const created = replyText(await h.click(operator, tokenOf(quote, /^Confirm/)));
  const job = h.scheduled.map((s) => s.job).findLast((j): j is RunJob => j.kind === "schedule-run");
  return { quote, created, job };
}

/**
 * Runs the occurrence's job as the job system would, at `at` (ms), and waits until the run it
 * started (if any) has posted its outcome. The next occurrence's job stays delayed in the queue.
 */
async function drive(h: SpendHarness, job: RunJob, at: number): Promise<void> {
  h.sandboxTime.set(new Date(at).toISOString());
  h.clock.advance(at - h.clock.now());
  await createScheduleRunHandler(h.deps)(job);
  const cid = runConfirmationId(job.scheduleId, job.occurrence);
  const deadline = Date.now() + 5_000;
  while ((await h.store.get(CLAIM_KEY(cid))) !== null && !(await isPosted(h.store, cid))) {
    if (Date.now() > deadline) throw new Error(`run of ${job.scheduleId} at ${at} not posted within 5 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  // The notify worker delivers what was posted.
  await new Promise((r) => setTimeout(r, 50));
}

const posted = (h: SpendHarness, pattern: RegExp): string[] =>
  h.notifications.map((n) => replyText(n.reply)).filter((t) => pattern.test(t));

describe("schedule energy: bad input", () => {
  it("answers one line for each mistake and creates nothing", async () => {
    const h = await setup();
    const address = freshAddress("sched");
    const cases: [string, RegExp][] = [
      [`${address} 65k at 8:00`, /"8:00" is not a time: write it as HH:MM in UTC/],
      [`${address} 65k at 24:00`, /"24:00" is not a time/],
      [
        `${address} 65k at 08:00 mon,fry`,
        /unknown day name "fry": write daily, weekdays, or days as sun,mon/,
      ],
      [`${address} 65k at 08:00 max 0`, /max must be a positive whole number of SUN/],
      [`${address} 65k at 08:00 daily max 4.5`, /max must be a positive whole number of SUN/],
      [`${address} 65k 08:00`, /no time given/],
    ];
    for (const [line, error] of cases) {
      const reply = await h.run(operator, `schedule energy ${line}`);
      expect(reply.visibility).toBe("private");
      expect(reply.blocks).toHaveLength(1);
      expect(replyText(reply)).toMatch(error);
    }
    expect(replyText(await h.run(viewer, "schedule list"))).toContain("No standing orders here");
    expect(h.scheduled.filter((s) => s.job.kind === "schedule-run")).toEqual([]);
  });

  it("refuses a 51st standing order in a conversation", async () => {
    const h = await setup();
    for (let i = 0; i < 50; i++) await h.deps.store.setAdd("schedules:slack:C0OPS", `S${1000 + i}`);
    const reply = await h.run(operator, `schedule energy ${freshAddress("sched")} 65k at 08:00`);
    expect(replyText(reply)).toMatch(/has 50 standing orders, the most it may have/);
    expect(h.sandbox.calls("pricing.get")).toEqual([]);
  });

  it("lets a viewer list but not create, pause or remove", async () => {
    const h = await setup();
    expect(replyText(await h.run(viewer, `schedule energy ${freshAddress("sched")} 65k at 08:00`))).toMatch(
      /operator/,
    );
    expect(replyText(await h.run(viewer, "schedule pause S1"))).toMatch(/operator/);
  });
});

describe("standing orders", () => {
  it("is quoted, confirmed once, runs at its occurrence through the Confirm path and is audited as scheduled", async () => {
    const h = await setup();
    const address = freshAddress("sched");
    const { quote, created, job } = await create(h, `${address} 65k at 18:30 weekdays max 45`);
    const quoted = replyText(quote);
    expect(quoted).toContain("When: weekdays at 18:30 UTC");
    expect(quoted).toContain("Next run: 2025-03-03 18:30 UTC");
    expect(quoted).toContain("Price now: 3.12 TRX (48 SUN per energy");
    expect(quoted).toMatch(/the unit price now \(48 SUN\) is above the max/);
    expect(created).toMatch(
      /^Standing order S1 created by slack:U0OPER: 65,000 energy to T\w+ weekdays at 18:30 UTC, max 45 SUN/,
    );
    const occurrence = Date.parse("2025-03-03T18:30:00Z");
    expect(job).toEqual({ kind: "schedule-run", scheduleId: "S1", occurrence });
    expect(h.scheduled.find((s) => s.job.kind === "schedule-run")?.options.jobId).toBe(
      `schedule-run:S1:${occurrence}`,
    );

    await drive(h, job as RunJob, occurrence + 2_000);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const [outcome] = posted(h, /Standing order S1, run of 2025-03-03 18:30 UTC/);
    expect(outcome).toMatch(/Evening|2\.73 TRX/);
    // The next occurrence is planned by the run (Tuesday).
    const next = Date.parse("2025-03-04T18:30:00Z");
    expect(h.scheduled.some((s) => s.options.jobId === `schedule-run:S1:${next}`)).toBe(true);
    // The same occurrence again (a retry, another instance): nothing more.
    await drive(h, job as RunJob, occurrence + 3_000);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(posted(h, /Standing order S1, run of/)).toHaveLength(1);

    const audit = await readAudit(h.store, 10);
    expect(audit.find((e) => e.result === "ok" && e.verb === "energy")?.schedule).toBe("S1");
    expect(replyText(await h.run(admin, "audit"))).toContain(
      "schedule_run schedule:S1 (asked by slack:U0OPER)",
    );
    expect(replyText(await h.run(viewer, "digest today"))).toMatch(
      /of which by standing orders: 2\.73 TRX \(1 run: S1\)/,
    );
    const listed = replyText(await h.run(viewer, "schedule list"));
    expect(listed).toMatch(
      /S1 · 65,000 energy to T\w+ · weekdays at 18:30 UTC, max 45 SUN · next 2025-03-04 18:30 UTC · last 2025-03-03 18:30 UTC: .* · by slack:U0OPER/,
    );
  });

  it("skips a run whose unit price is above max, with a message, and orders nothing", async () => {
    const h = await setup();
    const { job } = await create(h, `${freshAddress("sched")} 65k at 18:30 max 41`);
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(
      posted(
        h,
        /Skipped: the unit price now is 42 SUN \(Evening 18-24\), above this standing order's max of 41 SUN\. Nothing was ordered\./,
      ),
    ).toHaveLength(1);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });

  it("at or above OPS_APPROVAL_TRX posts an approval request in its thread instead of ordering", async () => {
    const h = await setup({ settings: { approvalTrx: "1", approvalTtlMs: 15 * 60_000 } });
    const { quote, job } = await create(h, `${freshAddress("sched")} 65k at 18:30`);
    expect(replyText(quote)).toMatch(/each run will post an approval request here instead of ordering/);
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const request = h.notifications.find((n) => /Approval needed/.test(replyText(n.reply)));
    expect(request, "the approval request").toBeDefined();
    if (!request) return;
    expect(replyText(request.reply)).toContain("Standing order S1, run of");
    await h.click(admin, tokenOf(request.reply, "Approve"), request.conversation);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const audit = await readAudit(h.store, 10);
    expect(audit.find((e) => e.result === "ok" && e.verb === "energy")?.schedule).toBe("S1");
  });

  it("a missed run is done within OPS_SCHEDULE_GRACE_MIN and skipped once beyond it", async () => {
    const h = await setup({ settings: { scheduleGraceMs: 10 * 60_000 } });
    const first = await create(h, `${freshAddress("sched")} 65k at 18:30`);
    const job = first.job as RunJob;
    await drive(h, job, job.occurrence + 9 * 60_000);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);

    const late = { ...job, occurrence: job.occurrence + 24 * 60 * 60_000 };
    await drive(h, late, late.occurrence + 11 * 60_000);
    await drive(h, late, late.occurrence + 12 * 60_000);
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    const skipped = posted(h, /was missed \(no instance of the bot was up\) and is skipped/);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(
      /11 minutes late, beyond the 10-minute grace \(OPS_SCHEDULE_GRACE_MIN\)\. Nothing was ordered\. Next run: 2025-03-03 18:30 UTC/,
    );
  });

  it("pause stops runs, resume plans the next one, remove deletes it; operators only", async () => {
    const h = await setup();
    const { job } = await create(h, `${freshAddress("sched")} 65k at 18:30`);
    expect(replyText(await h.run(viewer, "schedule pause S1"))).toMatch(/operator/);
    expect(replyText(await h.run(operator, "schedule pause S1"))).toBe(
      "Standing order S1 paused by slack:U0OPER: no run until it is resumed.",
    );
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(replyText(await h.run(viewer, "schedule list"))).toMatch(
      /S1 \(paused by slack:U0OPER\) .* next none/,
    );
    const planned = h.scheduled.length;
    h.clock.advance(60_000);
    expect(replyText(await h.run(operator, "schedule resume S1"))).toMatch(
      /^Standing order S1 resumed by slack:U0OPER\. Next run: 2025-03-02 18:30 UTC\.$/,
    );
    expect(h.scheduled.slice(planned).map((s) => s.options.jobId)).toEqual([
      `schedule-run:S1:${Date.parse("2025-03-02T18:30:00Z")}`,
    ]);
    expect(replyText(await h.run(operator, "schedule remove S1"))).toBe(
      "Standing order S1 removed by slack:U0OPER.",
    );
    expect(replyText(await h.run(viewer, "schedule list"))).toContain("No standing orders here");
    await drive(
      h,
      { ...(job as RunJob), occurrence: Date.parse("2025-03-02T18:30:00Z") },
      Date.parse("2025-03-02T18:30:00Z"),
    );
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(replyText(await h.run(operator, "schedule pause S9"))).toMatch(/No standing order S9 here/);
  });

  it("a blocked address pauses its standing order with an alert", async () => {
    const h = await setup();
    const address = freshAddress("sched");
    const { job } = await create(h, `${address} 65k at 18:30`);
    h.sandbox.screening.addToList("aml_risk", address);
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const alert = posted(
      h,
      /Standing order S1 \(energy for T\w+\) is paused: its address is on the deny list/,
    );
    expect(alert).toHaveLength(1);
    expect(alert[0]).toMatch(/Ack/);
    expect(
      posted(h, /Standing order S1, run of .*is now on the deny list.*Standing order S1 is paused/s),
    ).toHaveLength(1);
    expect(replyText(await h.run(viewer, "schedule list"))).toMatch(
      /S1 \(paused: address blocked by the bot\)/,
    );
  });
});

describe("safety nets", () => {
  it("a run whose creator is no longer an operator orders nothing", async () => {
    const h = await setup();
    const { job } = await create(h, `${freshAddress("sched")} 65k at 18:30`);
    h.deps.settings.operators = [];
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    expect(
      posted(h, /Skipped: slack:U0OPER, who created this standing order, is no longer an operator or admin/),
    ).toHaveLength(1);
  });

  it("the periodic ensure plans the next occurrence of every active standing order, with the same job id", async () => {
    const h = await setup();
    const { job } = await create(h, `${freshAddress("sched")} 65k at 18:30`);
    await create(h, `${freshAddress("sched")} 65k at 19:00`);
    await h.run(operator, "schedule pause S2");
    const before = h.scheduled.length;
    expect(await ensureStandingOrders(h.deps)).toBe(1);
    expect(h.scheduled.slice(before).map((s) => s.options.jobId)).toEqual([
      `schedule-run:S1:${(job as RunJob).occurrence}`,
    ]);
  });
});

describe("a watched address of a standing order turns blocked", () => {
  it("pauses the standing order at once, with one alert, before its next run", async () => {
    const h = await setup();
    const address = freshAddress("sched");
    const { job } = await create(h, `${address} 65k at 18:30`);
    await h.run(operator, `watch add ${address}`);
    await watchTick(h.deps, [], onBlocked);
    h.sandbox.screening.addToList("usdt_frozen", address);
    await watchTick(h.deps, [], onBlocked);
    await watchTick(h.deps, [], onBlocked);
    await h.waitFor(
      () => posted(h, /Standing order S1 \(energy for T\w+\) is paused/).length > 0,
      "the alert",
    );
    expect(posted(h, /Standing order S1 \(energy for T\w+\) is paused: .*usdt_frozen/)).toHaveLength(1);
    expect(replyText(await h.run(viewer, "schedule list"))).toMatch(
      /S1 \(paused: address blocked by the bot\)/,
    );
    await drive(h, job as RunJob, (job as RunJob).occurrence);
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
  });
});

describe("energy … cheapest", () => {
  it("offers Order now and Schedule at the cheaper later period's start; Schedule creates a one-off order with that max", async () => {
    const h = await setup();
    const address = freshAddress("cheap");
    const reply = await h.run(operator, `energy ${address} 65k cheapest`);
    const shown = replyText(reply);
    expect(shown).toContain("Now: 3.12 TRX (Day 06-18, 48 SUN per energy)");
    expect(shown).toContain(
      "Cheapest in 24 h: 2.6 TRX (Night 00-06, 40 SUN per energy, from 2025-03-02 00:00 UTC)",
    );
    expect(shown).toContain("Saving: 0.52 TRX");
    tokenOf(reply, "Order now 3.12 TRX");
    const created = replyText(await h.click(operator, tokenOf(reply, "Schedule at 00:01 (saves 0.52 TRX)")));
    expect(created).toMatch(
      /Standing order S1 created .* once on 2025-03-02 at 00:01 UTC, max 40 SUN per energy\. Next run: 2025-03-02 00:01 UTC/,
    );
    expect(h.sandbox.calls("order5m.create")).toEqual([]);
    const job = h.scheduled.map((s) => s.job).find((j): j is RunJob => j.kind === "schedule-run");
    await drive(h, job as RunJob, Date.parse("2025-03-02T00:01:00Z"));
    expect(h.sandbox.calls("order5m.create")).toHaveLength(1);
    expect(replyText(await h.run(viewer, "schedule list"))).toMatch(/S1 .* next none/);
  });

  it("when now is the cheapest period, says so and is a normal quote", async () => {
    const h = await setup();
    h.sandboxTime.set("2025-03-01T02:00:00.000Z");
    h.clock.advance(Date.parse("2025-03-01T02:00:00.000Z") - h.clock.now());
    const reply = await h.run(operator, `energy ${freshAddress("cheap")} 65k cheapest`);
    const shown = replyText(reply);
    expect(shown).toContain(
      "Now (Night 00-06, 40 SUN per energy) is the cheapest period of the next 24 hours: ordering now costs the least.",
    );
    tokenOf(reply, /^Confirm 2\.6 TRX/);
    expect(shown).not.toMatch(/Schedule at/);
  });
});
