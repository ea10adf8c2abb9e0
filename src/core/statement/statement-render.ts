import { isServiceError } from "../../service/errors.js";
import type { ReportOrder } from "../../service/reports.js";
import { toUserLine } from "../errors.js";
import { clip, formatTime } from "../format.js";
import { formatCount } from "../parse/echo.js";
import {
  type Block,
  code,
  context,
  type FileAttachment,
  fields,
  file,
  fileSize,
  publicReply,
  type Reply,
  text,
} from "../reply.js";

/** Statement orders and files as chat messages, and the one line for each documented error. */

/** The parts of an order a message shows (the order as read, or the request as sent). */
export interface StatementSubject {
  order_no: string;
  address: string;
  date_from: string;
  date_to: string;
  format: string;
  /** `TRX` when absent. */
  token_id?: string;
}

const tokenText = (token: string | undefined): string =>
  token === undefined || token === "" ? "TRX" : clip(token, 40);

function subjectFields(s: StatementSubject): Block {
  return fields(
    ["Address", code(s.address)],
    ["Period", `${s.date_from} to ${s.date_to}`],
    ["Format", s.format.toUpperCase()],
    ["Token", tokenText(s.token_id)],
  );
}

/** The reply to `statement …` once the service took the order (or found the same one). */
export function renderStatementOrdered(
  s: StatementSubject,
  state: { repeat: boolean; delivered: boolean; status: string },
): Reply {
  let line = `Statement ${s.order_no} ordered; the file will be posted here when ready.`;
  if (state.repeat && state.delivered) {
    line = `Statement ${s.order_no} was already ordered here today and its file was posted above.`;
  } else if (state.repeat) {
    line = `Statement ${s.order_no} was already ordered here today (${clip(state.status, 30)}); the file will be posted here when ready.`;
  }
  return publicReply(line, [text(line), subjectFields(s)]);
}

/** The file, posted into the conversation that asked for it. */
export function renderStatementFile(order: ReportOrder, attachment: FileAttachment): Reply {
  const summary = `Statement ${order.order_no} is ready: ${attachment.filename}`;
  const size = `${formatCount(fileSize(attachment))} bytes`;
  const blocks: Block[] = [text(summary), subjectFields(order), file(attachment)];
  const expires = order.expires_at ? ` · the service keeps it until ${formatTime(order.expires_at)}` : "";
  blocks.push(context(`${size}${expires}`));
  return publicReply(summary, blocks);
}

const notice = (line: string): Reply => publicReply(line, [text(line)]);

/** The build ended in `error`. */
export function renderStatementFailed(order: ReportOrder): Reply {
  const code = order.error_code === undefined ? "" : ` (${clip(String(order.error_code), 40)})`;
  const message = clip(order.error_message ?? "the service gave no reason", 160).replace(/[.\s]+$/, "");
  return notice(
    `Statement ${order.order_no} failed: ${message}${code}. No file was made; order it again later.`,
  );
}

export const renderStatementExpired = (orderNo: string): Reply =>
  notice(
    `Statement ${orderNo} has expired (the service keeps files 30 days), so it cannot be posted; order it again.`,
  );

export const renderStatementChecksumMismatch = (orderNo: string): Reply =>
  notice(
    `Statement ${orderNo}: the downloaded file does not match its sha256 checksum, so it was not posted. ` +
      `The file is damaged at the service or on the way; try again later or report ${orderNo} to the service.`,
  );

export const renderStatementUnreadable = (orderNo: string, what: string): Reply =>
  notice(`Statement ${orderNo}: ${what}, so no file was posted.`);

export const renderStatementGaveUp = (orderNo: string, hours: string): Reply =>
  notice(
    `Statement ${orderNo} is still not ready after ${hours}; I stopped checking. ` +
      "If the service's report webhook is set up, the file is still posted here when it is ready.",
  );

const codeOf = (code: number | string | undefined): string => (code === undefined ? "" : ` (code ${code})`);

/** One line for a failed reports call; `orderNo` when the order exists already. */
export const statementErrorLine = (error: unknown, orderNo?: string): string =>
  specificStatementLine(error, orderNo) ?? toUserLine(error);

/**
 * The line for a reports error the spec documents (400 checksum, 402, 409, 410, 422, 429, a
 * sha256 mismatch); undefined for the rest, which the core's generic error lines cover.
 */
export function specificStatementLine(error: unknown, orderNo?: string): string | undefined {
  if (!isServiceError(error)) return undefined;
  const which = orderNo === undefined ? "the statement" : `statement ${orderNo}`;
  const said = clip(error.message, 160).replace(/[.\s]+$/, "");
  if (error.kind === "invalid_reply" && error.endpoint === "reports.download") {
    return `The file of ${which} does not match its sha256 checksum, so it was not posted.`;
  }
  if (error.kind === "rate_limited") {
    const wait = Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000));
    return `The reports service is busy (rate limit); try ${which} again in ${wait} s.`;
  }
  switch (error.httpStatus) {
    case 400:
      return `The service refused the address: ${said} (HTTP 400); check it for a typo.`;
    case 402:
      return `Not enough balance on the service account for a statement: ${said}${codeOf(error.code)}. Top it up and try again.`;
    case 409:
      return `The service already has a different statement under this request's id (${said}); nothing new was ordered.`;
    case 410:
      return `The file of ${which} has expired (the service keeps files 30 days); order it again.`;
    case 422: {
      const details = error.details.length > 0 ? clip(error.details.join("; "), 200) : said;
      return `The service rejected the statement request: ${details}.`;
    }
    default:
      return undefined;
  }
}
