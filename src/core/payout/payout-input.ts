import type { SharedFile } from "../invocation.js";
import { parseEnergyAmount } from "../parse/amount.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { tokenize } from "../parse/tokenize.js";
import { TRON_ADDRESS_PATTERN } from "../parse/tron-address.js";
import { readPayoutCsv } from "./payout-csv.js";
import { isOptionKeyword, type PayoutOptions, parseOptionWords } from "./payout-options.js";
import { type PayoutRow, splitRow } from "./payout-row.js";

/**
 * The three chat forms of a payout run, read into rows (as typed; the plan checks them):
 *
 *   energy <amount> <address> <address> …          the same amount each
 *   energy [options] ⏎ <address> <amount> ⏎ …       one line each (`address amount` or `address,amount`)
 *   a CSV file shared with the message `energy`     (Slack file share, Telegram document, console @path)
 *
 * Anything else is not a payout run and stays with the single `energy <address> <amount>` (typed
 * amount first too: `energy 65k <address>`).
 */
export interface PayoutInput {
  source: "words" | "lines" | "file";
  rows: PayoutRow[];
  options: PayoutOptions;
}

/** The words after `energy` on the command's first line (`/ops energy` and `/energy@bot` included). */
function firstLineArgs(firstLine: string): string[] {
  const tokens = tokenize(firstLine);
  if (!tokens.ok) return [];
  const { verb, args } = tokens.value;
  return verb === "ops" ? args.slice(1) : args;
}

const looksLikeAddress = (word: string): boolean =>
  TRON_ADDRESS_PATTERN.test(word) || /^T\w{20,}$/.test(word);
const isAmount = (word: string): boolean => parseEnergyAmount(word).ok && !looksLikeAddress(word);

/** Splits trailing option words off a list of words. */
function optionsOf(words: readonly string[]): ParseResult<{ rest: string[]; options: PayoutOptions }> {
  const at = words.findIndex(isOptionKeyword);
  if (at === -1) return ok({ rest: [...words], options: {} });
  const options = parseOptionWords(words.slice(at));
  return options.ok ? ok({ rest: words.slice(0, at), options: options.value }) : options;
}

/**
 * The payout form of a command line (and its file), undefined when it is not a payout run, or
 * the one line that says what is wrong with it.
 */
export function readPayoutInput(
  text: string,
  file: SharedFile | undefined,
): ParseResult<PayoutInput> | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  const first = firstLineArgs(lines[0] ?? "");
  if (file !== undefined) return fromFile(file, first);
  if (first[0]?.startsWith("@")) {
    return fail(
      "a file path works on the console only: share the CSV file with the message energy (Slack file, Telegram document with the caption /energy)",
    );
  }
  if (lines.slice(1).some((l) => l.trim() !== "")) return fromLines(lines, first);
  const [amount, ...rest] = first;
  if (amount === undefined || !isAmount(amount) || rest.length === 0) return undefined;
  // `energy 65k <address>` (with `cheapest` or not) is the single order it plainly is.
  if (rest.length === 1 || (rest.length === 2 && rest[1]?.toLowerCase() === "cheapest")) return undefined;
  const split = optionsOf(rest);
  if (!split.ok) return split;
  const rows = split.value.rest.map((address, i) => ({ where: `address ${i + 1}`, address, amount }));
  return ok({ source: "words", rows, options: split.value.options });
}

function fromLines(lines: readonly string[], first: readonly string[]): ParseResult<PayoutInput> {
  const rows: PayoutRow[] = [];
  let options: PayoutOptions = {};
  // The first line may hold options (`energy bandwidth off`) or already the first row (Slack trims).
  const head = optionsOf(first);
  if (!head.ok) return head;
  options = head.value.options;
  if (head.value.rest.length > 0) rows.push({ where: "line 1", ...splitRow(head.value.rest.join(" ")) });
  lines.forEach((line, i) => {
    if (i === 0 || line.trim() === "") return;
    rows.push({ where: `line ${i + 1}`, ...splitRow(line) });
  });
  return ok({ source: "lines", rows, options });
}

function fromFile(file: SharedFile, words: readonly string[]): ParseResult<PayoutInput> {
  const split = optionsOf(words.filter((w) => !w.startsWith("@")));
  if (!split.ok) return split;
  if (split.value.rest.length > 0) {
    return fail(
      "with a CSV file, write energy alone (options allowed): the addresses and amounts come from the file",
    );
  }
  const rows = readPayoutCsv(file);
  return rows.ok ? ok({ source: "file", rows: rows.value, options: split.value.options }) : rows;
}
