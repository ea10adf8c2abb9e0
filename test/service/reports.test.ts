import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox, SandboxOptions } from "../../src/sandbox/server.js";
import type { StatementRequest } from "../../src/service/reports.js";
import { verifyServiceWebhook } from "../../src/webhooks/service-signature.js";
import { type Receiver, startReceiver } from "../sandbox/webhook-receiver.js";
import { type ClientOverrides, rejection, useSandboxClient } from "../support/service-kit.js";

const ADDRESS = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW";
// Same length and alphabet, last character changed: the base58 checksum fails.
const BAD_CHECKSUM = "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMX";

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});
const kit = useSandboxClient({ lifetime: "test", sandbox: { account: { reports: { buildMs: 30 } } } });
const start = (options: SandboxOptions = {}) => kit.start(options);
const reportsApi = (caller: ClientOverrides = {}) => kit.client(caller).reports;

const statement = (over: Partial<StatementRequest> = {}): StatementRequest => ({
  client_request_id: "stmt-0001",
  address: ADDRESS,
  date_from: "2025-01-01",
  date_to: "2025-01-31",
  ...over,
});

/** Waits on the sandbox's own state (no HTTP, so polling never touches the rate limit). */
async function settled(s: Sandbox, orderNo: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const status = s.reports.order(orderNo)?.status;
    if (status === "done" || status === "error") return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`report ${orderNo} did not finish`);
}

describe("reports.statement", () => {
  it("creates a queued order, which runs to done with artifact hash, size and download path", async () => {
    const s = await start();
    const api = reportsApi();
    const created = await api.statement(statement());
    expect(created).toMatchObject({ status: "success", code: 0, msg: "created" });
    expect(created.data).toMatchObject({
      client_request_id: "stmt-0001",
      type: "statement",
      status: "queued",
      progress_pct: 0,
      address: ADDRESS,
      token_id: "TRX",
      format: "csv",
      finished_at: null,
      artifact_sha256: null,
      download_url: null,
    });
    expect(created.data.order_no).toMatch(/^REP[A-Z0-9]{12}$/);
    await settled(s, created.data.order_no);
    const done = (await api.read(created.data.order_no)).data;
    expect(done).toMatchObject({ status: "done", progress_pct: 100 });
    expect(done.artifact_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(done.download_url).toBe(`/apiv2/reports/${done.order_no}/download`);
    expect(Date.parse(done.expires_at!) - Date.parse(done.finished_at!)).toBe(30 * 86_400_000);
    expect(s.calls("reports.statement")[0]!.body).toMatchObject({ client_request_id: "stmt-0001" });
  });

  it("passes through queued → running → waiting_external → done", async () => {
    const s = await start({ account: { reports: { buildMs: 300 } } });
    const { data } = await reportsApi().statement(statement());
    const seen = new Set<string>();
    for (let i = 0; i < 200 && seen.size < 4; i++) {
      seen.add(s.reports.order(data.order_no)!.status);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect([...seen]).toEqual(["queued", "running", "waiting_external", "done"]);
  });

  it("a repeat returns the existing order; the same identifier with another body is 409", async () => {
    const s = await start();
    const api = reportsApi();
    const first = await api.statement(statement({ idempotencyKey: "key-000000000001" }));
    const again = await api.statement(statement({ idempotencyKey: "key-000000000001" }));
    expect(again.msg).toBe("existing");
    expect(again.data.order_no).toBe(first.data.order_no);
    // Same client_request_id without the key: still the same order.
    expect((await api.statement(statement())).data.order_no).toBe(first.data.order_no);
    const conflict = await rejection(api.statement(statement({ date_to: "2025-02-28" })));
    expect(conflict).toMatchObject({ family: "reports", httpStatus: 409, code: "IDEMPOTENCY_CONFLICT" });
    const keyConflict = await rejection(
      api.statement(statement({ client_request_id: "stmt-0002", idempotencyKey: "key-000000000001" })),
    );
    expect(keyConflict.httpStatus).toBe(409);
    expect(s.reports.all()).toHaveLength(1);
    expect(s.calls("reports.statement").map((c) => c.status)).toEqual([200, 200, 200, 409, 409]);
    expect(s.calls("reports.statement")[0]!.headers["x-idempotency-key"]).toBe("key-000000000001");
  });

  it("400 for a 34-character address failing its base58 checksum", async () => {
    const s = await start();
    const error = await rejection(reportsApi().statement(statement({ address: BAD_CHECKSUM })));
    expect(error).toMatchObject({ httpStatus: 400, message: "address fails its base58 checksum" });
    expect(s.reports.all()).toHaveLength(0);
  });

  it("422 for a period above 366 days, a missing field and malformed values", async () => {
    const s = await start();
    const api = reportsApi();
    const tooLong = await rejection(
      api.statement(statement({ date_from: "2024-01-01", date_to: "2025-01-01" })),
    );
    expect(tooLong).toMatchObject({ httpStatus: 422, code: undefined });
    expect(tooLong.details).toEqual(["date_to: period above 366 days"]);
    // 366 days inclusive is allowed (leap year 2024).
    await expect(
      api.statement(statement({ date_from: "2024-01-01", date_to: "2024-12-31" })),
    ).resolves.toBeDefined();
    const missing = await rejection(
      api.statement({ ...statement(), client_request_id: undefined as unknown as string }),
    );
    expect(missing.details[0]).toMatch(/^client_request_id:/);
    const malformed = await rejection(
      api.statement(
        statement({
          client_request_id: "x2",
          address: "T123",
          date_from: "2025-02-30",
          format: "xls" as "csv",
        }),
      ),
    );
    expect(malformed.details.map((d) => d.split(":")[0])).toEqual(["address", "format", "date_from"]);
    expect(s.calls("reports.statement").map((c) => c.status)).toEqual([422, 200, 422, 422]);
  });

  it("402 code 1004 below 4 TRX, 401 for a bad IP, 403 code 1005 for a blocked key", async () => {
    const s = await start();
    s.account.balanceSun = 3_999_999;
    expect(await rejection(reportsApi().statement(statement()))).toMatchObject({
      httpStatus: 402,
      code: 1004,
    });
    s.account.balanceSun = 4_000_000;
    expect(await rejection(reportsApi({ realIp: "192.0.2.9" }).statement(statement()))).toMatchObject({
      httpStatus: 401,
    });
    s.account.blocked = true;
    expect(await rejection(reportsApi().statement(statement()))).toMatchObject({
      httpStatus: 403,
      code: 1005,
    });
    expect(s.reports.all()).toHaveLength(0);
  });

  it("429 with Retry-After: 1 past 10 orders a second, counted across callers", async () => {
    const s = await start({ enforceRateLimits: true });
    s.accounts.add({ apiKey: "other" });
    for (let i = 0; i < 5; i++) await reportsApi().statement(statement({ client_request_id: `mine-${i}` }));
    for (let i = 0; i < 5; i++)
      await reportsApi({ apiKey: "other" }).statement(statement({ client_request_id: `theirs-${i}` }));
    const limited = await rejection(reportsApi().statement(statement({ client_request_id: "one-more" })));
    expect(limited).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryAfterMs: 1000 });
    expect(s.reports.all()).toHaveLength(10);
  });
});

describe("reports.read", () => {
  it("shows error_code and error_message when the build fails; 404 for another account's order", async () => {
    const s = await start();
    s.reports.failNextBuild("EXPLORER_DOWN", "explorer unavailable");
    const { data } = await reportsApi().statement(statement());
    await settled(s, data.order_no);
    const read = (await reportsApi().read(data.order_no)).data;
    expect(read).toMatchObject({
      status: "error",
      error_code: "EXPLORER_DOWN",
      error_message: "explorer unavailable",
    });
    expect(read.download_url).toBeNull();
    s.accounts.add({ apiKey: "stranger" });
    expect(await rejection(reportsApi({ apiKey: "stranger" }).read(data.order_no))).toMatchObject({
      httpStatus: 404,
    });
    expect(await rejection(reportsApi().download(data.order_no, "0".repeat(64)))).toMatchObject({
      httpStatus: 409,
    });
    expect(s.outbound.history().filter((r) => r.kind === "report")).toHaveLength(0);
  });
});

describe("reports.download", () => {
  it("CSV: gzip bytes, .csv.gz name, sha256 checked against the order", async () => {
    const s = await start();
    const api = reportsApi();
    const { data } = await api.statement(statement());
    await settled(s, data.order_no);
    const done = (await api.read(data.order_no)).data;
    const file = await api.download(done.order_no, done.artifact_sha256!);
    expect(file.contentType).toBe("application/gzip");
    expect(file.filename).toBe(`statement_${ADDRESS}_2025-01-01_2025-01-31.csv.gz`);
    expect(file.bytes.length).toBe(done.artifact_size);
    expect(createHash("sha256").update(file.bytes).digest("hex")).toBe(done.artifact_sha256);
    const csv = gunzipSync(file.bytes).toString("utf8");
    expect(csv.split("\n")[0]).toBe("date,tx_id,direction,amount,token");
    expect(s.calls("reports.download")[0]!.headers.accept).toBe("*/*");
  });

  it("PDF: application/pdf, a PDF file", async () => {
    const s = await start();
    const api = reportsApi();
    const { data } = await api.statement(
      statement({ format: "pdf", token_id: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" }),
    );
    await settled(s, data.order_no);
    const done = (await api.read(data.order_no)).data;
    const file = await api.download(done.order_no, done.artifact_sha256!);
    expect(file.contentType).toBe("application/pdf");
    expect(file.filename).toMatch(/\.pdf$/);
    expect(file.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(file.bytes.toString("latin1").trimEnd().endsWith("%%EOF")).toBe(true);
  });

  it("a corrupted file fails the sha256 check as invalid_reply", async () => {
    const s = await start();
    const api = reportsApi();
    const { data } = await api.statement(statement());
    await settled(s, data.order_no);
    const done = (await api.read(data.order_no)).data;
    s.reports.corrupt(done.order_no);
    expect(await rejection(api.download(done.order_no, done.artifact_sha256!))).toMatchObject({
      kind: "invalid_reply",
      endpoint: "reports.download",
    });
    expect(s.calls("reports.download").map((c) => c.status)).toEqual([200]);
  });

  it("410 once the file expired; read says expired", async () => {
    const s = await start();
    const api = reportsApi();
    const { data } = await api.statement(statement());
    await settled(s, data.order_no);
    const sha = (await api.read(data.order_no)).data.artifact_sha256!;
    s.reports.expire(data.order_no);
    expect((await api.read(data.order_no)).data.status).toBe("expired");
    expect(await rejection(api.download(data.order_no, sha))).toMatchObject({ httpStatus: 410, code: 410 });
  });

  it("the file expires 30 days after it was made (clock moved)", async () => {
    let now = Date.parse("2025-03-01T00:00:00Z");
    const s = await start({ now: () => now });
    const api = reportsApi();
    const { data } = await api.statement(statement());
    await settled(s, data.order_no);
    now += 30 * 86_400_000 - 1;
    expect((await api.read(data.order_no)).data.status).toBe("done");
    now += 1;
    expect((await api.read(data.order_no)).data.status).toBe("expired");
  });
});

describe("report.ready webhook", () => {
  it("is delivered signed to the registered report endpoint when the file is done", async () => {
    receiver = await startReceiver();
    const s = await start({ outbound: { originMap: { "https://opsbot.test": receiver.origin } } });
    const hooks = kit.client().webhooks;
    const endpoint = await hooks.reports.create({
      url: "https://opsbot.test/webhooks/reports",
      role: "primary",
    });
    const { data } = await reportsApi().statement(statement({ client_request_id: "stmt-hook" }));
    await settled(s, data.order_no);
    await s.outbound.idle();
    expect(receiver.received).toHaveLength(1);
    const hit = receiver.received[0]!;
    expect(hit.path).toBe("/webhooks/reports");
    const verified = verifyServiceWebhook({
      rawBody: hit.body,
      timestampHeader: hit.headers["x-service-timestamp"],
      signatureHeader: hit.headers["x-service-signature"],
      secrets: [endpoint.secret],
      nowMs: Date.now(),
    });
    expect(verified).toEqual({ ok: true, secretIndex: 0 });
    const done = (await reportsApi().read(data.order_no)).data;
    expect(JSON.parse(hit.body.toString())).toEqual({
      event: "report.ready",
      delivery_id: Number(hit.headers["x-service-delivery"]),
      order_id: data.order_no,
      order_type: "statement",
      client_request_id: "stmt-hook",
      status: "done",
      format: "csv",
      download_url: done.download_url,
      expires_at: done.expires_at,
      artifact: { sha256: done.artifact_sha256, size_bytes: done.artifact_size },
      confirmed_at: expect.any(String),
    });
    expect(hit.headers["x-service-event"]).toBeUndefined();
  });
});
