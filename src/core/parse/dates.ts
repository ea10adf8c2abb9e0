import { echo } from "./echo.js";
import { fail, ok, type ParseResult } from "./result.js";
import { parseTronAddress } from "./tron-address.js";

/**
 * The spec: `date_from`, `date_to` are UTC dates, inclusive, "at most 366 days". We count the
 * days inclusively (2024-01-01..2024-12-31 is 366 days, so a leap year fits; to − from ≤ 365).
 * If the service meant to − from ≤ 366 we are one day stricter, never looser: nothing we accept
 * can come back as a 422.
 */
export const STATEMENT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_HELP = "use YYYY-MM-DD, e.g. 2026-01-31";

export interface StatementPeriod {
  /** As sent in `date_from` / `date_to`. */
  dateFrom: string;
  dateTo: string;
  /** Days covered, both ends included. */
  days: number;
}

/** A real calendar date as YYYY-MM-DD, returned as its UTC day number (days since 1970-01-01). */
export function parseIsoDate(text: string): ParseResult<number> {
  const input = text.trim();
  const match = DATE.exec(input);
  if (match === null) return fail(`${echo(input)} is not a date: ${DATE_HELP}`);
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2026-02-30 over to 2026-03-02 (and maps years 0-99 to 1900+): compare back.
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!real) return fail(`${echo(input)} is not a real calendar date: ${DATE_HELP}`);
  return ok(date.getTime() / DAY_MS);
}

const isoDay = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

/** `<from> <to>` of a statement: real dates, from ≤ to ≤ today (UTC), at most 366 days inclusive. */
export function parseStatementPeriod(from: string, to: string, today: Date): ParseResult<StatementPeriod> {
  const start = parseIsoDate(from);
  if (!start.ok) return start;
  const end = parseIsoDate(to);
  if (!end.ok) return end;
  const [dateFrom, dateTo] = [isoDay(start.value), isoDay(end.value)];
  if (start.value > end.value) {
    return fail(
      `the period starts after it ends (${dateFrom} is after ${dateTo}): give <from> first, then <to>`,
    );
  }
  const todayDay = Math.floor(today.getTime() / DAY_MS);
  if (end.value > todayDay) {
    return fail(
      `${dateTo} is in the future (today is ${isoDay(todayDay)} UTC): the period must end today or earlier`,
    );
  }
  const days = end.value - start.value + 1;
  if (days > STATEMENT_MAX_DAYS) {
    return fail(
      `${dateFrom} to ${dateTo} is ${days} days: a statement covers at most ${STATEMENT_MAX_DAYS} days, both dates included`,
    );
  }
  return ok({ dateFrom, dateTo, days });
}

export type StatementFormat = "csv" | "pdf";

/** `csv` (the default when absent) or `pdf`, any case. */
export function parseStatementFormat(text?: string): ParseResult<StatementFormat> {
  const format = (text ?? "").trim().toLowerCase();
  if (format === "" || format === "csv") return ok("csv");
  if (format === "pdf") return ok("pdf");
  return fail(`${echo(text ?? "")} is not a statement format: use csv (the default) or pdf`);
}

export type StatementToken =
  | { kind: "trx" }
  | { kind: "trc20"; contract: string }
  | { kind: "trc10"; id: string };

/** TRC10 ids are numbers counted up from 1000001. */
const TRC10_FIRST_ID = 1_000_001;
const TOKEN_HELP =
  "use TRX (the default), a TRC20 contract address (T…) or a TRC10 id (digits, e.g. 1002000)";

/** The statement's token: TRX (absent or `trx`), a TRC20 contract address or a TRC10 id. */
export function parseStatementToken(text?: string): ParseResult<StatementToken> {
  const token = (text ?? "").trim();
  if (token === "" || token.toLowerCase() === "trx") return ok({ kind: "trx" });
  if (/^\d+$/.test(token)) {
    const inRange = token.length <= 10 && Number(token) >= TRC10_FIRST_ID;
    return inRange
      ? ok({ kind: "trc10", id: token })
      : fail(`${echo(token)} is not a TRC10 id: ${TOKEN_HELP}`);
  }
  if (token.startsWith("T")) {
    const contract = parseTronAddress(token);
    return contract.ok ? ok({ kind: "trc20", contract: contract.value }) : contract;
  }
  return fail(`${echo(token)} is not a token: ${TOKEN_HELP}`);
}

/** The `token_id` to send: omitted for TRX. */
export function statementTokenId(token: StatementToken): string | undefined {
  if (token.kind === "trc20") return token.contract;
  if (token.kind === "trc10") return token.id;
  return undefined;
}
