import type { SharedFile } from "../invocation.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { isTronAddress, parseTronAddress } from "../parse/tron-address.js";
import { labelProblem, MAX_WATCH_LIST } from "./limits.js";
import type { ScreenPeriod } from "./state.js";
import { readWatchFile } from "./watch-file.js";

/**
 * `watch add <address> [label…] [screen daily|weekly]`, `watch add <address> <address>… [screen …]`
 * (a list: spaces, commas, semicolons or new lines between), `watch add [screen …]` with a CSV file
 * shared with the message (console: `watch add @file.csv`), `watch remove <address>`, `watch list [page]`.
 * The address is checked locally (pattern and base58check): a typo would pass the service's
 * pattern, come back "clean" forever and never alert.
 */
const WATCH_USAGE =
  "use watch add <address> [label…], watch add <address> <address>… (a list or a CSV file), watch add <address> screen daily|weekly, watch remove <address> or watch list";

export type WatchArgs =
  | { kind: "add"; address: string; label?: string; screen?: ScreenPeriod }
  /** `watch add T1 T2 …` or `T1,T2,…` (no label), or a CSV file (labels from its second column). */
  | { kind: "add-many"; addresses: string[]; labels?: ReadonlyMap<string, string>; screen?: ScreenPeriod }
  | { kind: "remove"; address: string }
  | { kind: "list"; page: number };

export function parseWatchArgs(
  subverb: string | undefined,
  args: readonly string[],
  file?: SharedFile,
): ParseResult<WatchArgs> {
  if (file !== undefined && subverb !== "add") {
    return fail("a CSV file goes with watch add only: share it with the message watch add");
  }
  switch (subverb) {
    case "add":
      if (file !== undefined) return parseFileAdd(args, file);
      if (args[0]?.startsWith("@")) {
        return fail(
          "a file path works on the console only: share the CSV file with the message watch add (Slack file, Telegram document with the caption /watch add)",
        );
      }
      return parseAdd(args);
    case "remove":
      return parseRemove(args);
    case "list":
      return parsePage(args);
    default:
      return fail(WATCH_USAGE);
  }
}

/** Addresses of a list are separated by spaces, commas, semicolons or new lines. */
const LIST_SEPARATOR = /[\s,;]+/;

const listItems = (words: readonly string[]): string[] =>
  words.flatMap((w) => w.split(LIST_SEPARATOR)).filter((w) => w !== "");

/** A list, when the first word holds several items or the second word is an address too (never a label). */
function isList(args: readonly string[]): boolean {
  const first = args[0] ?? "";
  if (listItems([first]).length > 1) return true;
  const second = args[1];
  return second !== undefined && isTronAddress(listItems([second])[0] ?? "");
}

/** Splits a trailing `screen daily|weekly` off the words. */
function screenOf(
  words: readonly string[],
): ParseResult<{ words: readonly string[]; screen?: ScreenPeriod }> {
  const at = words.findIndex((w) => w.toLowerCase() === "screen");
  if (at === -1) return ok({ words });
  const period = words[at + 1]?.toLowerCase();
  if ((period !== "daily" && period !== "weekly") || at + 2 !== words.length) {
    return fail("screen takes daily or weekly at the end, e.g. watch add <address> screen weekly");
  }
  return ok({ words: words.slice(0, at), screen: period });
}

function parseAdd(args: readonly string[]): ParseResult<WatchArgs> {
  if (args[0] === undefined) return fail(`no address given: ${WATCH_USAGE}`);
  const split = screenOf(args);
  if (!split.ok) return split;
  const { words, screen } = split.value;
  if (isList(words)) return parseList(listItems(words), screen);
  const [text = "", ...rest] = words;
  const address = parseTronAddress(text);
  if (!address.ok) return address;
  const label = rest.join(" ").trim();
  const problem = label === "" ? undefined : labelProblem(label);
  if (problem !== undefined) return fail(problem);
  return ok({
    kind: "add",
    address: address.value,
    ...(label !== "" && { label }),
    ...(screen && { screen }),
  });
}

function parseList(items: readonly string[], screen: ScreenPeriod | undefined): ParseResult<WatchArgs> {
  const addresses = [...new Set(items)];
  if (addresses.length > MAX_WATCH_LIST) {
    return fail(`a list takes at most ${MAX_WATCH_LIST} addresses, got ${addresses.length}: split it`);
  }
  for (const [i, item] of items.entries()) {
    const address = parseTronAddress(item);
    if (!address.ok) return fail(`address ${i + 1} of the list: ${address.error}; nothing was added`);
  }
  return ok({ kind: "add-many", addresses, ...(screen && { screen }) });
}

/** `watch add [screen daily|weekly]` with a file: the addresses (and labels) come from the file. */
function parseFileAdd(args: readonly string[], file: SharedFile): ParseResult<WatchArgs> {
  const split = screenOf(args.filter((w) => !w.startsWith("@")));
  if (!split.ok) return split;
  if (split.value.words.length > 0) {
    return fail(
      "with a CSV file, write watch add alone (screen daily|weekly allowed): the addresses come from the file",
    );
  }
  const read = readWatchFile(file);
  if (!read.ok) return read;
  const { screen } = split.value;
  return ok({ kind: "add-many", ...read.value, ...(screen && { screen }) });
}

function parseRemove(args: readonly string[]): ParseResult<WatchArgs> {
  const [text, ...extra] = args;
  if (text === undefined) return fail(`no address given: use watch remove <address>`);
  if (extra.length > 0) return fail("watch remove takes one address: use watch remove <address>");
  const address = parseTronAddress(text);
  return address.ok ? ok({ kind: "remove", address: address.value }) : address;
}

function parsePage(args: readonly string[]): ParseResult<WatchArgs> {
  const [text, ...extra] = args;
  if (text === undefined) return ok({ kind: "list", page: 1 });
  const page = Number(text);
  if (extra.length > 0 || !Number.isInteger(page) || page < 1) {
    return fail("watch list takes a page number, e.g. watch list 2");
  }
  return ok({ kind: "list", page });
}
