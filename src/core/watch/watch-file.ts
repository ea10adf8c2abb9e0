import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../invocation.js";
import { nonBlankLines, readCsvText } from "../parse/csv-file.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress, TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { labelProblem, MAX_WATCH_LIST } from "./limits.js";

/**
 * A watch file: CSV, one address per row in the first column; a second column, when there is one,
 * is the watch's label (as typed after the address in `watch add <address> hot wallet`), further
 * columns are ignored. Header row optional, UTF-8 (a BOM is fine), blank lines skipped, a repeated
 * address counted once (its first label stands). At most MAX_WATCH_LIST addresses and
 * SHARED_FILE_MAX_BYTES (512 KB, what the adapters download). One bad row refuses the whole file,
 * naming its line; nothing is stored.
 */
const WATCH_FILE_ACCEPTED = `share a .csv file of one address per row (an optional second column is its label; header optional, UTF-8, at most ${MAX_WATCH_LIST} addresses and ${SHARED_FILE_MAX_BYTES / 1024} KB)`;

export interface WatchFile {
  addresses: string[];
  /** Address → label, for the rows that gave one. */
  labels: Map<string, string>;
}

export function readWatchFile(file: SharedFile): ParseResult<WatchFile> {
  const text = readCsvText(file, SHARED_FILE_MAX_BYTES);
  if (!text.ok) return fail(`${text.error}: ${WATCH_FILE_ACCEPTED}`);
  const lines = nonBlankLines(text.value);
  const labels = new Map<string, string>();
  const seen = new Set<string>();
  for (const [i, { line, number }] of lines.entries()) {
    const [first = "", label = ""] = fieldsOf(line);
    if (i === 0 && isHeader(first)) continue;
    const address = parseTronAddress(first);
    if (!address.ok) return fail(`${file.name} line ${number}: ${address.error}; nothing was added`);
    const problem = label === "" ? undefined : labelProblem(label);
    if (problem !== undefined) return fail(`${file.name} line ${number}: ${problem}; nothing was added`);
    if (seen.has(address.value)) continue;
    seen.add(address.value);
    if (label !== "") labels.set(address.value, label);
  }
  if (seen.size === 0) return fail(`${file.name} has no addresses: ${WATCH_FILE_ACCEPTED}`);
  if (seen.size > MAX_WATCH_LIST) {
    return fail(`${file.name} has ${seen.size} addresses, at most ${MAX_WATCH_LIST} are taken: split it`);
  }
  return ok({ addresses: [...seen], labels });
}

/** A first row like `address` or `Address,Label` (no digit, not an address) is a header. */
const isHeader = (first: string): boolean => !TRON_ADDRESS_PATTERN.test(first) && !/\d/.test(first);

const unquote = (field: string): string =>
  field
    .trim()
    .replace(/^"(.*)"$/s, (_, inner: string) => inner.replaceAll('""', '"'))
    .trim();

/**
 * The fields of a row: split at its first comma, semicolon or tab outside quotes (that is the
 * row's delimiter), a field in double quotes may hold it (`""` is a quote); a row without one is
 * `address label…` split at the first space, as typed in chat.
 */
function fieldsOf(line: string): string[] {
  const text = line.trim();
  const delimiter = /[,;\t]/.exec(text.replace(/"[^"]*"/g, ""))?.[0];
  if (delimiter === undefined) {
    const cut = /\s/.exec(text);
    const fields = cut === null ? [text] : [text.slice(0, cut.index), text.slice(cut.index)];
    return fields.map(unquote);
  }
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else quoted = false;
    } else if (char === '"' && field.trim() === "") {
      quoted = true;
      field = "";
    } else if (char === delimiter) {
      fields.push(field.trim());
      field = "";
    } else field += char;
  }
  fields.push(field.trim());
  return fields;
}
