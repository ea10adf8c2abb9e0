import { MIN_BALANCE_SUN } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { json, type Route, readJson, type SandboxReply, type SandboxRequest } from "../../router.js";
import { authenticate, headerValue, isReply, lowBalanceReply, validationReply } from "./common.js";
import { createReportBook, fingerprintOf, type ReportBook, type ReportBookOptions } from "./report-book.js";
import { checkStatement, validIdempotencyKey } from "./report-request.js";

/** POST /apiv2/reports/statement, GET /apiv2/reports/{order_no}, GET …/download. */

const fail = (status: number, code: number | string, msg: string): SandboxReply =>
  json(status, { status: "error", code, msg });

function auth(ctx: SandboxContext, req: SandboxRequest) {
  return authenticate(ctx, req, () => fail(401, 401, "Invalid API key or IP not whitelisted"));
}

function order(ctx: SandboxContext, book: ReportBook, req: SandboxRequest): SandboxReply {
  const account = auth(ctx, req);
  if (isReply(account)) return account;
  if (account.balanceSun < MIN_BALANCE_SUN) return lowBalanceReply(account.balanceSun);
  const key = headerValue(req, "x-idempotency-key");
  if (key !== undefined && !validIdempotencyKey(key)) {
    return validationReply([
      { field: "X-Idempotency-Key", msg: "12 to 128 characters of A-Z a-z 0-9 . _ : -" },
    ]);
  }
  const checked = checkStatement(readJson(req));
  if (!checked.ok) {
    return checked.status === 422 ? validationReply(checked.errors) : fail(400, 400, checked.message);
  }
  const found = book.findExisting(account.userId, checked.value.client_request_id, key);
  if (found.length > 0) {
    const fingerprint = fingerprintOf(checked.value);
    // Key and client_request_id must point at one order, made from the same body.
    const same = found.every((o) => o === found[0] && o.fingerprint === fingerprint);
    if (!same) return fail(409, "IDEMPOTENCY_CONFLICT", "identifier already used with a different body");
    return json(200, { status: "success", code: 0, msg: "existing", data: book.view(found[0]!) });
  }
  const created = book.create(account, checked.value, key);
  return json(200, { status: "success", code: 0, msg: "created", data: book.view(created) });
}

function read(ctx: SandboxContext, book: ReportBook, req: SandboxRequest): SandboxReply {
  const account = auth(ctx, req);
  if (isReply(account)) return account;
  const found = book.find(account.userId, req.params.order_no ?? "");
  if (!found) return fail(404, 404, "report not found");
  return json(200, { status: "success", code: 0, msg: "ok", data: book.view(found) });
}

function download(ctx: SandboxContext, book: ReportBook, req: SandboxRequest): SandboxReply {
  const account = auth(ctx, req);
  if (isReply(account)) return account;
  const found = book.find(account.userId, req.params.order_no ?? "");
  if (!found) return fail(404, 404, "report not found");
  const status = book.statusOf(found);
  if (status === "expired") return fail(410, 410, "report file expired");
  if (status !== "done" || !found.artifact) return fail(409, 409, `report is not ready (status ${status})`);
  const { bytes, contentType, filename } = found.artifact;
  return {
    status: 200,
    raw: bytes,
    headers: {
      "content-type": contentType,
      "content-disposition": `attachment; filename="${filename}"`,
      "content-length": String(bytes.length),
    },
  };
}

export function createReportRoutes(ctx: SandboxContext, options: ReportBookOptions = {}) {
  const book = createReportBook(ctx, options);
  const routes: Route[] = [
    {
      method: "POST",
      pattern: "/apiv2/reports/statement",
      name: "reports.statement",
      buckets: ["reports_statement"],
      limitBy: "global",
      handler: (req) => order(ctx, book, req),
    },
    {
      method: "GET",
      pattern: "/apiv2/reports/:order_no",
      name: "reports.read",
      buckets: ["reports_read"],
      limitBy: "global",
      handler: (req) => read(ctx, book, req),
    },
    {
      method: "GET",
      pattern: "/apiv2/reports/:order_no/download",
      name: "reports.download",
      buckets: ["reports_download"],
      limitBy: "global",
      handler: (req) => download(ctx, book, req),
    },
  ];
  return { routes, control: book.control };
}
