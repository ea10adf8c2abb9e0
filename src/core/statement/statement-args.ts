import {
  parseStatementFormat,
  parseStatementPeriod,
  parseStatementToken,
  type StatementFormat,
  type StatementPeriod,
  type StatementToken,
} from "../parse/dates.js";
import { echo } from "../parse/echo.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress } from "../parse/tron-address.js";

export interface StatementArgs {
  address: string;
  period: StatementPeriod;
  format: StatementFormat;
  token: StatementToken;
}

const USAGE =
  "use statement <address> <from> <to> [csv|pdf] [token], e.g. statement T… 2026-01-01 2026-01-31 pdf";

/**
 * `statement <address> <from> <to> [csv|pdf] [token]`. The two optional words may come in either
 * order: csv/pdf is the format, anything else the token.
 */
export function parseStatementArgs(args: readonly string[], today: Date): ParseResult<StatementArgs> {
  const [addressText, from, to, ...optional] = args;
  if (addressText === undefined || from === undefined || to === undefined) {
    return fail(`a statement needs an address and two dates: ${USAGE}`);
  }
  if (optional.length > 2) return fail(`too many words after statement (${args.length}): ${USAGE}`);
  const address = parseTronAddress(addressText);
  if (!address.ok) return address;
  const period = parseStatementPeriod(from, to, today);
  if (!period.ok) return period;
  const extras = splitOptional(optional);
  if (!extras.ok) return extras;
  const format = parseStatementFormat(extras.value.format);
  if (!format.ok) return format;
  const token = parseStatementToken(extras.value.token);
  if (!token.ok) return token;
  return ok({ address: address.value, period: period.value, format: format.value, token: token.value });
}

const FORMAT_WORD = /^(csv|pdf)$/i;
const TOKEN_LIKE = /^(trx|T.*|\d+)$/i;

function splitOptional(words: readonly string[]): ParseResult<{ format?: string; token?: string }> {
  const formats = words.filter((word) => FORMAT_WORD.test(word));
  const tokens = words.filter((word) => !FORMAT_WORD.test(word));
  const stray = tokens.find((word) => !TOKEN_LIKE.test(word));
  if (stray !== undefined) {
    return fail(
      `${echo(stray)} is neither a format nor a token: use csv or pdf, and TRX, a TRC20 contract (T…) or a TRC10 id`,
    );
  }
  if (formats.length > 1) return fail(`two formats given (${formats.join(", ")}): use csv or pdf, once`);
  if (tokens.length > 1) return fail("two tokens given: give one token, or none for TRX");
  return ok({ format: formats[0], token: tokens[0] });
}
