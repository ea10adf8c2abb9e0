import { fail, ok, type ParseResult } from "./result.js";

/**
 * The text of a CSV file shared with a command (payout run, watch list), or what is wrong with the
 * file as a whole: unreadable, not CSV (by name or type), over the command's own `maxBytes` (or
 * not downloaded by the adapter), not UTF-8. The error is the problem alone ("x.xlsx is not a CSV
 * file"): the command adds what it accepts. A UTF-8 BOM is dropped.
 */
/** What is read of a shared file (`SharedFile` of `invocation.ts`, named here so parse stays pure). */
interface CsvFile {
  name: string;
  mimeType?: string;
  sizeBytes: number;
  bytes?: Uint8Array;
  unreadable?: string;
}

const CSV_TYPES = new Set(["text/csv", "text/plain", "text/comma-separated-values", "application/csv"]);

function isCsv(file: CsvFile): boolean {
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

export function readCsvText(file: CsvFile, maxBytes: number): ParseResult<string> {
  if (file.unreadable !== undefined) return fail(`the file could not be read (${file.unreadable})`);
  if (!isCsv(file)) return fail(`${file.name} is not a CSV file`);
  if (file.sizeBytes > maxBytes || file.bytes === undefined || file.bytes.byteLength > maxBytes) {
    const size = Math.max(file.sizeBytes, file.bytes?.byteLength ?? 0);
    return fail(`${file.name} is too large (${Math.ceil(size / 1024)} KB)`);
  }
  const text = decodeUtf8(file.bytes);
  return text === undefined ? fail(`${file.name} is not UTF-8 text`) : ok(text);
}

/** The lines of a file's text (the first `maxLines`), each with its 1-based number; blank lines left out. */
export function nonBlankLines(text: string, maxLines?: number): { line: string; number: number }[] {
  return text
    .split(/\r\n|\r|\n/, maxLines)
    .map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => line.trim() !== "");
}
