import { charCount, invisibleNote, isInvisible } from "../parse/echo.js";
import { fail, ok, type ParseResult } from "../parse/result.js";
import { parseTronAddress } from "../parse/tron-address.js";
import type { ScreenPeriod } from "./state.js";

/**
 * `watch add <address> [label…] [screen daily|weekly]`, `watch remove <address>`, `watch list [page]`.
 * The address is checked locally (pattern and base58check): a typo would pass the service's
 * pattern, come back "clean" forever and never alert.
 */
const WATCH_USAGE =
  "use watch add <address> [label…], watch add <address> screen daily|weekly, watch remove <address> or watch list";
const MAX_LABEL_CHARS = 80;

export type WatchArgs =
  | { kind: "add"; address: string; label?: string; screen?: ScreenPeriod }
  | { kind: "remove"; address: string }
  | { kind: "list"; page: number };

export function parseWatchArgs(subverb: string | undefined, args: readonly string[]): ParseResult<WatchArgs> {
  switch (subverb) {
    case "add":
      return parseAdd(args);
    case "remove":
      return parseRemove(args);
    case "list":
      return parseList(args);
    default:
      return fail(WATCH_USAGE);
  }
}

function parseAdd(args: readonly string[]): ParseResult<WatchArgs> {
  const [text, ...rest] = args;
  if (text === undefined) return fail(`no address given: ${WATCH_USAGE}`);
  const address = parseTronAddress(text);
  if (!address.ok) return address;
  let words = rest;
  let screen: ScreenPeriod | undefined;
  const at = words.findIndex((w) => w.toLowerCase() === "screen");
  if (at >= 0) {
    const period = words[at + 1]?.toLowerCase();
    if ((period !== "daily" && period !== "weekly") || at + 2 !== words.length) {
      return fail("screen takes daily or weekly at the end, e.g. watch add <address> screen weekly");
    }
    screen = period;
    words = words.slice(0, at);
  }
  const label = words.join(" ").trim();
  if (label !== "" && isInvisible(label)) {
    return fail(`the label has no visible character${invisibleNote(label)}: write it in letters or digits`);
  }
  // Counted as a person counts them: an emoji or an accented letter is one character.
  if (charCount(label) > MAX_LABEL_CHARS) return fail(`a label has at most ${MAX_LABEL_CHARS} characters`);
  return ok({
    kind: "add",
    address: address.value,
    ...(label !== "" && { label }),
    ...(screen && { screen }),
  });
}

function parseRemove(args: readonly string[]): ParseResult<WatchArgs> {
  const [text, ...extra] = args;
  if (text === undefined) return fail(`no address given: use watch remove <address>`);
  if (extra.length > 0) return fail("watch remove takes one address: use watch remove <address>");
  const address = parseTronAddress(text);
  return address.ok ? ok({ kind: "remove", address: address.value }) : address;
}

function parseList(args: readonly string[]): ParseResult<WatchArgs> {
  const [text, ...extra] = args;
  if (text === undefined) return ok({ kind: "list", page: 1 });
  const page = Number(text);
  if (extra.length > 0 || !Number.isInteger(page) || page < 1) {
    return fail("watch list takes a page number, e.g. watch list 2");
  }
  return ok({ kind: "list", page });
}
