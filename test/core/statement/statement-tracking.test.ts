import { describe, expect, it } from "vitest";
import type { Reply } from "../../../src/core/reply.js";
import {
  createStatementPoller,
  deliverStatementFile,
  STATEMENT_POLL_BUDGET_MS,
  statementPollDelayMs,
} from "../../../src/core/statement/statement-tracking.js";
import { createTrackedHandlers } from "../../../src/core/tracking-registry.js";
import { type CoreHarness, channel, operator, useCoreHarness } from "../../support/core-harness.js";

const ADDRESS = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";
const JANUARY = `statement ${ADDRESS} 2025-01-01 2025-01-31`;

/**
 * The job system's poller is switched off here, so each test drives `poll-statement` and the
 * webhook's `deliverStatementFile` itself, at the moment it chooses.
 */
const harness = useCoreHarness({
  sandbox: { account: { reports: { buildMs: 30 } } },
  tracked: (deps) => ({ ...createTrackedHandlers(deps), "poll-statement": async () => ({ done: true }) }),
});

const hasFile = (reply: Reply) => reply.blocks.some((b) => b.type === "file");

async function orderBuilt(h: CoreHarness): Promise<string> {
  const reply = await h.run(operator, JANUARY);
  const orderNo = /Statement (REP[A-Z0-9]{12})/.exec(reply.summary)?.[1];
  if (!orderNo) throw new Error(`not ordered: ${reply.summary}`);
  await h.waitFor(() => h.sandbox.reports.order(orderNo)?.status === "done", "the build");
  return orderNo;
}

const job = (orderNo: string, attempt = 0) => ({
  kind: "poll-statement" as const,
  orderNo,
  conversation: channel,
  attempt,
});

describe("statement delivery", () => {
  it("posts a clear sha256-mismatch line and no file for a corrupted artifact, once", async () => {
    const h = await harness.setup();
    const orderNo = await orderBuilt(h);
    h.sandbox.reports.corrupt(orderNo);
    expect(await createStatementPoller(h.deps)(job(orderNo))).toEqual({ done: true });
    // The webhook path meets the same file later: same answer, nothing posted twice.
    expect(await deliverStatementFile(h.deps, orderNo, channel)).toBe("checksum-mismatch");
    await h.settle();
    expect(h.delivered.map((d) => d.reply.summary)).toEqual([
      `Statement ${orderNo}: the downloaded file does not match its sha256 checksum, so it was not posted. ` +
        `The file is damaged at the service or on the way; try again later or report ${orderNo} to the service.`,
    ]);
    expect(h.delivered.some((d) => hasFile(d.reply))).toBe(false);
    expect(h.sandbox.calls("reports.download").map((c) => c.status)).toEqual([200, 200]);
  });

  it("delivers the file once whether the poller or the webhook gets there first, even at the same time", async () => {
    const h = await harness.setup();
    const orderNo = await orderBuilt(h);
    const both = await Promise.all([
      deliverStatementFile(h.deps, orderNo, channel),
      createStatementPoller(h.deps)(job(orderNo)),
    ]);
    expect(both).toEqual(["delivered", { done: true }]);
    await h.settle();
    expect(h.delivered.filter((d) => hasFile(d.reply))).toHaveLength(1);
    const downloads = h.sandbox.calls("reports.download").length;
    // Afterwards neither path downloads or posts again.
    expect(await deliverStatementFile(h.deps, orderNo, channel)).toBe("already-delivered");
    expect(await createStatementPoller(h.deps)(job(orderNo, 3))).toEqual({ done: true });
    await h.settle();
    expect(h.delivered).toHaveLength(1);
    expect(h.sandbox.calls("reports.download")).toHaveLength(downloads);
  });

  it("says so when the file expired, read as expired or answered 410 by the download", async () => {
    const h = await harness.setup();
    const first = await orderBuilt(h);
    h.sandbox.reports.expire(first);
    expect(await deliverStatementFile(h.deps, first, channel)).toBe("expired");
    const second = await orderBuilt(h);
    h.sandbox.inject("reports.download", {
      kind: "reply",
      reply: { status: 410, json: { status: "error", code: 410, msg: "report file expired" } },
    });
    expect(await deliverStatementFile(h.deps, second, channel)).toBe("expired");
    await h.settle();
    expect(h.delivered.map((d) => d.reply.summary)).toEqual(
      [first, second].map(
        (n) =>
          `Statement ${n} has expired (the service keeps files 30 days), so it cannot be posted; order it again.`,
      ),
    );
    expect(h.sandbox.calls("reports.download").map((c) => c.status)).toEqual([410]);
  });
});

describe("poll-statement", () => {
  it("polls again with a growing delay while the report is building, without posting", async () => {
    const h = await harness.setup();
    h.sandbox.reports.setBuildTime(60_000);
    const reply = await h.run(operator, JANUARY);
    const orderNo = /Statement (REP[A-Z0-9]{12})/.exec(reply.summary)![1]!;
    const poll = createStatementPoller(h.deps);
    expect(await poll(job(orderNo, 0))).toEqual({ again: true, delayMs: 3_000 });
    expect(await poll(job(orderNo, 1))).toEqual({ again: true, delayMs: 4_500 });
    expect(h.sandbox.calls("reports.read")).toHaveLength(2);
    expect(h.sandbox.calls("reports.download")).toHaveLength(0);
    expect(h.notifications).toHaveLength(0);
  });

  it("rides out a transient failure, and posts one line for a permanent one", async () => {
    const h = await harness.setup();
    const orderNo = await orderBuilt(h);
    const poll = createStatementPoller(h.deps);
    h.sandbox.inject("reports.read", { kind: "reply", reply: { status: 503, json: { detail: "busy" } } });
    expect(await poll(job(orderNo))).toEqual({ again: true, delayMs: 3_000 });
    expect(h.notifications).toHaveLength(0);
    h.sandbox.inject("reports.read", {
      kind: "reply",
      reply: { status: 404, json: { status: "error", code: 404, msg: "report not found" } },
    });
    expect(await poll(job(orderNo, 1))).toEqual({ done: true });
    await h.settle();
    expect(h.delivered.map((d) => d.reply.summary)).toEqual([
      `Statement ${orderNo}: the service refused: report not found (code 404), so no file was posted.`,
    ]);
  });

  it("stops after its budget with one line saying the webhook may still deliver", async () => {
    const h = await harness.setup();
    h.sandbox.reports.setBuildTime(60_000);
    const reply = await h.run(operator, JANUARY);
    const orderNo = /Statement (REP[A-Z0-9]{12})/.exec(reply.summary)![1]!;
    let last = 0;
    while (statementPollDelayMs(last + 1) !== null) last += 1;
    const poll = createStatementPoller(h.deps);
    expect(await poll(job(orderNo, last + 1))).toEqual({ done: true });
    await h.settle();
    expect(h.delivered.map((d) => d.reply.summary)).toEqual([
      `Statement ${orderNo} is still not ready after 2 hours; I stopped checking. If the service's report webhook is set up, the file is still posted here when it is ready.`,
    ]);
  });

  it("backs off from 3 s to one poll a minute and stays within two hours", () => {
    const delays: number[] = [];
    for (let i = 0; ; i += 1) {
      const delay = statementPollDelayMs(i);
      if (delay === null) break;
      delays.push(delay);
    }
    expect(delays.slice(0, 4)).toEqual([3_000, 4_500, 6_750, 10_125]);
    expect(Math.max(...delays)).toBe(60_000);
    const total = 3_000 + delays.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(STATEMENT_POLL_BUDGET_MS);
    expect(total).toBeGreaterThan(STATEMENT_POLL_BUDGET_MS - 60_000);
  });
});
