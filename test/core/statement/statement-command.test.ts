import { describe, expect, it } from "vitest";
import { readAudit } from "../../../src/core/audit-log.js";
import { findOrigin } from "../../../src/core/origins.js";
import type { FileAttachment, Reply } from "../../../src/core/reply.js";
import { statementCsv, statementPdf } from "../../../src/sandbox/families/account/report-artifacts.js";
import type { SandboxReply } from "../../../src/sandbox/router.js";
import {
  type CoreHarness,
  channel,
  operator,
  replyText,
  useCoreHarness,
  viewer,
} from "../../support/core-harness.js";

const ADDRESS = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const TYPO = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMV";
const JANUARY = `statement ${ADDRESS} 2025-01-01 2025-01-31`;
const ORDERED = /^Statement (REP[A-Z0-9]{12}) ordered; the file will be posted here when ready\.$/;

// Builds take 30 ms in the sandbox; the harness runs the first poll (3 s) after 30 ms.
const harness = useCoreHarness({ sandbox: { account: { reports: { buildMs: 30 } } } });

const orderNoOf = (reply: Reply): string => {
  const match = ORDERED.exec(reply.summary) ?? /Statement (REP[A-Z0-9]{12})/.exec(reply.summary);
  if (!match?.[1]) throw new Error(`no order number in "${reply.summary}"`);
  return match[1];
};

const filesOf = (h: CoreHarness): FileAttachment[] =>
  h.delivered.flatMap((d) => d.reply.blocks.flatMap((b) => (b.type === "file" ? [b.file] : [])));

async function fileFor(h: CoreHarness): Promise<FileAttachment> {
  await h.waitFor(() => filesOf(h).length > 0, "the statement file");
  await h.settle();
  const files = filesOf(h);
  expect(files).toHaveLength(1);
  return files[0]!;
}

describe("statement: ordering and delivery", () => {
  it("orders a CSV, remembers the conversation, polls, and posts the decompressed CSV once", async () => {
    const h = await harness.setup();
    const reply = await h.run(operator, JANUARY);
    expect(reply.visibility).toBe("public");
    expect(reply.summary).toMatch(ORDERED);
    expect(replyText(reply)).toContain(
      `Address: ${ADDRESS}\nPeriod: 2025-01-01 to 2025-01-31\nFormat: CSV\nToken: TRX`,
    );
    const orderNo = orderNoOf(reply);
    expect(h.scheduled).toEqual([
      {
        job: { kind: "poll-statement", orderNo, conversation: channel },
        options: { delayMs: 3_000, jobId: `poll-statement:${orderNo}` },
      },
    ]);
    expect(await findOrigin(h.store, "report", orderNo)).toEqual(channel);

    const file = await fileFor(h);
    expect(file.filename).toBe(`statement-${ADDRESS}-2025-01-01-2025-01-31.csv`);
    expect(file.contentType).toBe("text/csv");
    // What the sandbox built for this order (its rows are seeded by the whole request).
    const built = h.sandbox.reports.order(orderNo)!;
    expect(built.request).toMatchObject({ address: ADDRESS, token_id: "TRX", format: "csv" });
    expect(built.artifact!.contentType).toBe("application/gzip");
    const expected = statementCsv(built.request);
    expect(Buffer.from(file.bytes ?? []).toString("utf8")).toBe(expected);
    expect(expected.startsWith("date,tx_id,direction,amount,token\n")).toBe(true);
    const posted = h.notifications.filter((n) => n.reply.blocks.some((b) => b.type === "file"));
    expect(posted.map((n) => [n.conversation, n.dedupKey])).toEqual([[channel, `statement:${orderNo}`]]);

    const [call] = h.sandbox.calls("reports.statement");
    expect(call!.body).toEqual({
      client_request_id: expect.stringMatching(/^st-2025-01-01-2025-01-31-csv-TJCnKsPa7y5.*:[0-9a-f]{24}$/),
      address: ADDRESS,
      date_from: "2025-01-01",
      date_to: "2025-01-31",
      format: "csv",
    });
    expect(h.sandbox.calls("reports.read").length).toBeGreaterThanOrEqual(1);
    expect(h.sandbox.calls("reports.download").map((c) => c.path)).toEqual([
      `/apiv2/reports/${orderNo}/download`,
    ]);
    const [entry] = await readAudit(h.store, 1);
    expect(entry).toMatchObject({ verb: "statement", address: ADDRESS, result: "ok", orderIds: [orderNo] });
  });

  it("posts a PDF as it came, and sends a TRC20 token as token_id", async () => {
    const h = await harness.setup();
    const reply = await h.run(operator, `${JANUARY} pdf ${USDT}`);
    expect(replyText(reply)).toContain(`Format: PDF\nToken: ${USDT}`);
    const file = await fileFor(h);
    expect(file.filename).toBe(`statement-${ADDRESS}-2025-01-01-2025-01-31.pdf`);
    expect(file.contentType).toBe("application/pdf");
    const pdf = statementPdf({
      address: ADDRESS,
      token_id: USDT,
      date_from: "2025-01-01",
      date_to: "2025-01-31",
      format: "pdf",
    });
    expect(Buffer.from(file.bytes ?? []).equals(pdf)).toBe(true);
    expect(
      Buffer.from(file.bytes ?? [])
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expect(h.sandbox.calls("reports.statement")[0]!.body).toMatchObject({ format: "pdf", token_id: USDT });
  });

  it("posts the service's error when the build fails, and downloads nothing", async () => {
    const h = await harness.setup();
    h.sandbox.reports.failNextBuild();
    const orderNo = orderNoOf(await h.run(operator, JANUARY));
    await h.waitFor(() => h.delivered.length > 0, "the failure message");
    await h.settle();
    expect(h.delivered.map((d) => d.reply.summary)).toEqual([
      `Statement ${orderNo} failed: the block explorer did not answer (EXTERNAL_SOURCE_FAILED). No file was made; order it again later.`,
    ]);
    expect(h.notifications[0]!.dedupKey).toBe(`statement:${orderNo}`);
    expect(h.sandbox.calls("reports.download")).toHaveLength(0);
  });
});

describe("statement: local validation", () => {
  it.each([
    [`statement ${TYPO} 2025-01-01 2025-01-31`, /checksum failed/],
    [`statement ${ADDRESS} 2025-02-30 2025-03-01`, /not a real calendar date/],
    [`statement ${ADDRESS} 2025/01/01 2025-01-31`, /is not a date: use YYYY-MM-DD/],
    [`statement ${ADDRESS} 2025-02-01 2025-01-01`, /starts after it ends/],
    [`statement ${ADDRESS} 2024-01-01 2025-01-01`, /is 367 days: a statement covers at most 366 days/],
    [`statement ${ADDRESS} 2999-01-01 2999-01-02`, /in the future/],
    [`${JANUARY} xls`, /is neither a format nor a token/],
    [`${JANUARY} csv pdf`, /two formats given/],
    [`${JANUARY} csv 12`, /is not a TRC10 id/],
    [`statement ${ADDRESS} 2025-01-01`, /needs an address and two dates/],
  ])("%s → one private line, no call", async (line, error) => {
    const h = await harness.setup();
    const reply = await h.run(operator, line);
    expect(reply.visibility).toBe("private");
    expect(reply.blocks).toHaveLength(1);
    expect(reply.summary).toMatch(error);
    expect(h.sandbox.calls()).toHaveLength(0);
    expect(h.scheduled).toHaveLength(0);
  });

  it("is for operators: a viewer is refused before anything is checked or called", async () => {
    const h = await harness.setup();
    expect((await h.run(viewer, JANUARY)).summary).toMatch(
      /^statement needs the operator role; you are a viewer/,
    );
    expect(h.sandbox.calls()).toHaveLength(0);
  });
});

describe("statement: repeats", () => {
  it("a repeat of the same invocation finds the same order; once posted it says so and posts nothing", async () => {
    const h = await harness.setup();
    const first = await h.run(operator, JANUARY);
    const second = await h.run(operator, JANUARY);
    const orderNo = orderNoOf(first);
    expect(second.summary).toMatch(
      new RegExp(
        `^Statement ${orderNo} was already ordered here today \\(\\w+\\); the file will be posted here`,
      ),
    );
    const ids = h.sandbox
      .calls("reports.statement")
      .map((c) => (c.body as { client_request_id: string }).client_request_id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(h.sandbox.reports.all()).toHaveLength(1);
    await fileFor(h);

    const third = await h.run(operator, JANUARY);
    expect(third.summary).toBe(
      `Statement ${orderNo} was already ordered here today and its file was posted above.`,
    );
    await h.settle();
    expect(filesOf(h)).toHaveLength(1);
    expect(h.scheduled).toHaveLength(2);
    expect((await readAudit(h.store, 10)).filter((e) => e.verb === "statement")).toHaveLength(1);
  });

  it("another person, conversation or format is another order", async () => {
    const h = await harness.setup({ settings: { operators: ["slack:U0OPER", "slack:U0OTHER"] } });
    await h.run(operator, JANUARY);
    await h.run({ platform: "slack", userId: "U0OTHER" }, JANUARY);
    await h.run(operator, JANUARY, { platform: "slack", id: "C0ELSE" });
    await h.run(operator, `${JANUARY} pdf`);
    const ids = new Set(
      h.sandbox
        .calls("reports.statement")
        .map((c) => (c.body as { client_request_id: string }).client_request_id),
    );
    expect(ids.size).toBe(4);
    expect(h.sandbox.reports.all()).toHaveLength(4);
    await h.settle();
  });

  it("asking again after a failed build orders a new file instead of finding the failed one", async () => {
    const h = await harness.setup();
    h.sandbox.reports.failNextBuild();
    const failed = orderNoOf(await h.run(operator, JANUARY));
    await h.waitFor(() => h.delivered.length === 1, "the failure message");
    const again = await h.run(operator, JANUARY);
    expect(again.summary).toMatch(ORDERED);
    expect(orderNoOf(again)).not.toBe(failed);
    const bodies = h.sandbox.calls("reports.statement").map((c) => c.body as { client_request_id: string });
    expect(bodies).toHaveLength(3); // first, the repeat that found the failed order, the new one
    expect(bodies[1]!.client_request_id).toBe(bodies[0]!.client_request_id);
    expect(bodies[2]!.client_request_id).not.toBe(bodies[0]!.client_request_id);
    await fileFor(h);
  });
});

describe("statement: service errors, one line each", () => {
  const cases: [string, SandboxReply | "low-balance", string][] = [
    [
      "400",
      { status: 400, json: { status: "error", code: 400, msg: "address fails its base58 checksum" } },
      "The service refused the address: address fails its base58 checksum (HTTP 400); check it for a typo.",
    ],
    [
      "402",
      "low-balance",
      "Not enough balance on the service account for a statement: Insufficient balance: at least 4 TRX required, available 1.000000 TRX (code 1004). Top it up and try again.",
    ],
    [
      "409",
      {
        status: 409,
        json: {
          status: "error",
          code: "IDEMPOTENCY_CONFLICT",
          msg: "identifier already used with a different body",
        },
      },
      "The service already has a different statement under this request's id (identifier already used with a different body); nothing new was ordered.",
    ],
    [
      "422",
      {
        status: 422,
        json: { detail: [{ loc: ["body", "date_to"], msg: "period above 366 days", type: "value_error" }] },
      },
      "The service rejected the statement request: date_to: period above 366 days.",
    ],
    [
      "429",
      { status: 429, json: { message: "API rate limit exceeded" }, headers: { "retry-after": "1" } },
      "The reports service is busy (rate limit); try the statement again in 1 s.",
    ],
  ];
  it.each(cases)("%s", async (_status, reply, line) => {
    const h = await harness.setup();
    if (reply === "low-balance") h.sandbox.account.balanceSun = 1_000_000;
    else h.sandbox.inject("reports.statement", { kind: "reply", reply });
    const answer = await h.run(operator, JANUARY);
    expect(answer).toEqual({
      summary: line,
      blocks: [{ type: "text", spans: [{ text: line }] }],
      visibility: "private",
    });
    expect(h.sandbox.calls("reports.statement")).toHaveLength(1);
    expect(h.scheduled).toHaveLength(0);
    const [entry] = await readAudit(h.store, 1);
    expect(entry).toMatchObject({ verb: "statement", result: "failed", message: line });
  });

  it("leaves an undocumented failure to the core's generic line, and audits it", async () => {
    const h = await harness.setup();
    h.sandbox.inject("reports.statement", {
      kind: "reply",
      reply: { status: 500, json: { detail: "boom" } },
    });
    const answer = await h.run(operator, JANUARY);
    expect(answer).toMatchObject({
      summary: "The service had a problem (HTTP 500); try again later.",
      visibility: "private",
    });
    expect(h.scheduled).toHaveLength(0);
    expect((await readAudit(h.store, 1))[0]).toMatchObject({
      verb: "statement",
      result: "failed",
      message: "boom",
    });
  });
});
