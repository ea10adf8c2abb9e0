import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../invocation.js";
import { parseEnergyAmount } from "../parse/amount.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { type PayoutRow, splitRow } from "./payout-row.js";

/**
 * A payout file: CSV `address,amount` (header optional), UTF-8, at most 100 rows and 64 KB.
 * Rows beyond 100 are read too, so the quote can name them as left out; a file that is not CSV,
 * too large or unreadable is refused as a whole with one line that says what is accepted.
 */
const PAYOUT_FILE_ACCEPTED =
  "share a .csv file of address,amount rows (header optional, UTF-8, at most 100 rows and 64 KB)";
const CSV_TYPES = new Set(["text/csv", "text/plain", "text/comma-separated-values", "application/csv"]);
/** Far beyond 100 rows, but a file of a million empty lines stops here. */
const MAX_LINES = 2_000;

function isCsv(file: SharedFile): boolean {
  if (/\.(csv|txt)$/i.test(file.name)) return true;
  return file.mimeType !== undefined && CSV_TYPES.has(file.mimeType.toLowerCase().split(";")[0] ?? "");
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    return undefined;
  }
}

/** A first row like `address,amount` (no address, no amount in it) is a header. */
function isHeader(row: { address: string; amount: string }): boolean {
  return !TRON_ADDRESS_PATTERN.test(row.address) && !parseEnergyAmount(row.amount).ok;
}

export function readPayoutCsv(file: SharedFile): ParseResult<PayoutRow[]> {
  if (file.unreadable !== undefined)
    return fail(`the file could not be read (${file.unreadable}): ${PAYOUT_FILE_ACCEPTED}`);
  if (!isCsv(file)) return fail(`${file.name} is not a CSV file: ${PAYOUT_FILE_ACCEPTED}`);
  if (file.sizeBytes > SHARED_FILE_MAX_BYTES || file.bytes === undefined) {
    return fail(
      `${file.name} is too large (${Math.ceil(file.sizeBytes / 1024)} KB): ${PAYOUT_FILE_ACCEPTED}`,
    );
  }
  const text = decodeUtf8(file.bytes);
  if (text === undefined) return fail(`${file.name} is not UTF-8 text: ${PAYOUT_FILE_ACCEPTED}`);
  const lines = text.split(/\r\n|\r|\n/).slice(0, MAX_LINES);
  const rows: PayoutRow[] = [];
  let headerSeen = false;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const row = splitRow(line);
    if (rows.length === 0 && !headerSeen && isHeader(row)) {
      headerSeen = true;
      return;
    }
    rows.push({ where: `line ${i + 1}`, ...row });
  });
  if (rows.length === 0) return fail(`${file.name} has no rows: ${PAYOUT_FILE_ACCEPTED}`);
  return ok(rows);
}
