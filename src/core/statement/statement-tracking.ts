import { gunzipSync } from "node:zlib";
import { isServiceError } from "../../service/errors.js";
import type { DownloadedReport, ReportOrder } from "../../service/reports.js";
import type { Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import { ORIGIN_TTL_MS } from "../origins.js";
import type { PollAnswer } from "../poll.js";
import type { TrackedJob } from "../ports.js";
import type { FileAttachment, Reply } from "../reply.js";
import {
  renderStatementChecksumMismatch,
  renderStatementExpired,
  renderStatementFailed,
  renderStatementFile,
  renderStatementGaveUp,
  renderStatementUnreadable,
  statementErrorLine,
} from "./statement-render.js";

/**
 * A statement order from "ordered" to "file posted". Two paths reach the file: the poller below
 * and the service's `report.ready` webhook (which calls `deliverStatementFile`). Whichever comes
 * first posts it; the other finds the delivered mark (or, racing, the notifier's dedup key) and
 * posts nothing. Every final message (file, failure, expiry) shares the dedup key
 * `statement:<order_no>`, so one order ends in exactly one message.
 */
export type StatementOutcome =
  | "delivered"
  | "already-delivered"
  | "pending"
  | "failed"
  | "expired"
  | "checksum-mismatch";

/** The dedup key of an order's final message (file, failure or expiry). */
const statementDedupKey = (orderNo: string): string => `statement:${orderNo}`;
export const statementPollJobId = (orderNo: string): string => `poll-statement:${orderNo}`;
const deliveredKey = (orderNo: string): string => `statement:delivered:${orderNo}`;

/** The first poll after ordering: a small statement is often built within seconds. */
export const STATEMENT_FIRST_POLL_MS = 3_000;
/** Polls back off to one a minute and stop after two hours (the webhook can still deliver later). */
const POLL_MAX_DELAY_MS = 60_000;
export const STATEMENT_POLL_BUDGET_MS = 2 * 3_600_000;
/** Larger than this once decompressed: the CSV is posted still gzipped (chat upload limits). */
const MAX_CSV_BYTES = 45 * 1024 * 1024;

export const wasStatementDelivered = async (store: Store, orderNo: string): Promise<boolean> =>
  (await store.get(deliveredKey(orderNo))) !== null;

/**
 * The delay before poll `attempt + 1`: 3 s, 4.5 s, 6.8 s … growing by half up to a minute; `null`
 * once the delays so far exceed the two-hour budget.
 */
export function statementPollDelayMs(attempt: number): number | null {
  let spent = STATEMENT_FIRST_POLL_MS;
  let delay = STATEMENT_FIRST_POLL_MS;
  for (let i = 0; ; i += 1) {
    if (spent + delay > STATEMENT_POLL_BUDGET_MS) return null;
    if (i >= attempt) return delay;
    spent += delay;
    delay = Math.min(POLL_MAX_DELAY_MS, Math.round(delay * 1.5));
  }
}

/** Worth asking again later: rate limits, timeouts, network failures, 5xx. */
function isTransientError(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === "timeout" || error.kind === "network" || error.kind === "rate_limited") return true;
  return error.retryable || (error.kind === "http" && (error.httpStatus ?? 0) >= 500);
}

/**
 * Reads the order and acts on its status: done → download (sha256 checked), decompress a CSV and
 * post the file; error → post the service's error; expired → say so; anything else → "pending".
 * Throws only transient service errors (the caller asks again later); every other failure is
 * posted to `conversation` once and answered as an outcome.
 */
export async function deliverStatementFile(
  deps: CoreDeps,
  orderNo: string,
  conversation: ConversationRef,
): Promise<StatementOutcome> {
  const final = (reply: Reply, key = statementDedupKey(orderNo)) =>
    deps.notifier.post(conversation, reply, key);
  if (await wasStatementDelivered(deps.store, orderNo)) return "already-delivered";
  let order: ReportOrder;
  try {
    order = (await deps.service.reports.read(orderNo)).data;
  } catch (error) {
    if (isTransientError(error)) throw error;
    await final(renderStatementUnreadable(orderNo, lowerFirst(statementErrorLine(error, orderNo))));
    return "failed";
  }
  switch (order.status) {
    case "done":
      return deliverDone(deps, order, conversation);
    case "error":
      await final(renderStatementFailed(order));
      return "failed";
    case "expired":
      await final(renderStatementExpired(orderNo));
      return "expired";
    default:
      return "pending";
  }
}

async function deliverDone(
  deps: CoreDeps,
  order: ReportOrder,
  conversation: ConversationRef,
): Promise<StatementOutcome> {
  const orderNo = order.order_no;
  const final = (reply: Reply, key = statementDedupKey(orderNo)) =>
    deps.notifier.post(conversation, reply, key);
  if (!order.artifact_sha256) {
    await final(renderStatementUnreadable(orderNo, "the service reported it done without its sha256"));
    return "failed";
  }
  let download: DownloadedReport;
  try {
    download = await deps.service.reports.download(orderNo, order.artifact_sha256);
  } catch (error) {
    if (isServiceError(error) && error.kind === "invalid_reply" && error.endpoint === "reports.download") {
      deps.logger.warn({ orderNo, err: error.message }, "statement file failed its sha256 check");
      // Its own key: a later, intact download (the webhook's, a repeat) may still post the file.
      await final(renderStatementChecksumMismatch(orderNo), `${statementDedupKey(orderNo)}:sha256`);
      return "checksum-mismatch";
    }
    if (isServiceError(error) && error.httpStatus === 410) {
      await final(renderStatementExpired(orderNo));
      return "expired";
    }
    if (isTransientError(error)) throw error;
    await final(renderStatementUnreadable(orderNo, lowerFirst(statementErrorLine(error, orderNo))));
    return "failed";
  }
  const attachment = attachmentOf(order, download);
  if (attachment === undefined) {
    await final(renderStatementUnreadable(orderNo, "the CSV file could not be decompressed (bad gzip)"));
    return "failed";
  }
  await final(renderStatementFile(order, attachment));
  await deps.store.set(deliveredKey(orderNo), "1", ORIGIN_TTL_MS.report);
  return "delivered";
}

const lowerFirst = (line: string): string => line.charAt(0).toLowerCase() + line.slice(1).replace(/\.$/, "");

/** File names from service data: only characters every chat platform and file system accepts. */
const safe = (part: string): string => part.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64);
const isGzip = (bytes: Uint8Array): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The file to post: a CSV decompressed (the spec sends it gzipped), a PDF as it came. */
function attachmentOf(order: ReportOrder, download: DownloadedReport): FileAttachment | undefined {
  const stem = `statement-${safe(order.address)}-${safe(order.date_from)}-${safe(order.date_to)}`;
  const title = `Statement ${order.order_no}`;
  const bytes = download.bytes;
  if (order.format === "pdf") {
    return { filename: `${stem}.pdf`, contentType: "application/pdf", bytes, title };
  }
  if (order.format !== "csv") {
    const name = download.filename ? safe(download.filename) : `${stem}.${safe(order.format)}`;
    return { filename: name, contentType: download.contentType ?? "application/octet-stream", bytes, title };
  }
  if (!isGzip(bytes)) return { filename: `${stem}.csv`, contentType: "text/csv", bytes, title };
  try {
    const csv = gunzipSync(bytes, { maxOutputLength: MAX_CSV_BYTES });
    return { filename: `${stem}.csv`, contentType: "text/csv", bytes: csv, title };
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      return { filename: `${stem}.csv.gz`, contentType: "application/gzip", bytes, title };
    }
    return undefined;
  }
}

type StatementJob = Extract<TrackedJob, { kind: "poll-statement" }>;

/** The `poll-statement` handler: poll with a growing delay until the order settles or the budget ends. */
export function createStatementPoller(deps: CoreDeps): (job: StatementJob) => Promise<PollAnswer> {
  return async (job) => {
    const attempt = job.attempt ?? 0;
    let outcome: StatementOutcome;
    try {
      outcome = await deliverStatementFile(deps, job.orderNo, job.conversation);
    } catch (error) {
      // Transient only (deliverStatementFile posts the rest): ask again on the same schedule.
      deps.logger.warn({ orderNo: job.orderNo, attempt, err: error }, "statement poll failed; will retry");
      outcome = "pending";
    }
    if (outcome !== "pending") return { done: true };
    const delayMs = statementPollDelayMs(attempt);
    if (delayMs !== null) return { again: true, delayMs };
    const hours = `${STATEMENT_POLL_BUDGET_MS / 3_600_000} hours`;
    await deps.notifier.post(
      job.conversation,
      renderStatementGaveUp(job.orderNo, hours),
      `${statementDedupKey(job.orderNo)}:gave-up`,
    );
    return { done: true };
  };
}
