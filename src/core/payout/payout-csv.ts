import type { SharedFile } from "../invocation.js";
import { parseEnergyAmount } from "../parse/amount.js";
import { nonBlankLines, readCsvText } from "../parse/csv-file.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { type PayoutRow, splitRow } from "./payout-row.js";

/**
 * A payout file: CSV `address,amount` (header optional), UTF-8, at most 100 rows and 64 KB (the
 * payout's own limit: adapters download more, for the watch list). Rows beyond 100 are read too,
 * so the quote can name them as left out; a file that is not CSV, too large or unreadable is
 * refused as a whole with one line that says what is accepted.
 */
const PAYOUT_FILE_ACCEPTED =
  "share a .csv file of address,amount rows (header optional, UTF-8, at most 100 rows and 64 KB)";
const PAYOUT_FILE_MAX_BYTES = 64 * 1024;
/** Far beyond 100 rows, but a file of a million empty lines stops here. */
const MAX_LINES = 2_000;

/** A first row like `address,amount` (no address, no amount in it) is a header. */
function isHeader(row: { address: string; amount: string }): boolean {
  return !TRON_ADDRESS_PATTERN.test(row.address) && !parseEnergyAmount(row.amount).ok;
}

export function readPayoutCsv(file: SharedFile): ParseResult<PayoutRow[]> {
  const text = readCsvText(file, PAYOUT_FILE_MAX_BYTES);
  if (!text.ok) return fail(`${text.error}: ${PAYOUT_FILE_ACCEPTED}`);
  const rows: PayoutRow[] = [];
  let headerSeen = false;
  for (const { line, number } of nonBlankLines(text.value, MAX_LINES)) {
    const row = splitRow(line);
    if (rows.length === 0 && !headerSeen && isHeader(row)) {
      headerSeen = true;
      continue;
    }
    rows.push({ where: `line ${number}`, ...row });
  }
  if (rows.length === 0) return fail(`${file.name} has no rows: ${PAYOUT_FILE_ACCEPTED}`);
  return ok(rows);
}
