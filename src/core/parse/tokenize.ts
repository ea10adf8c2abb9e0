import { closest } from "./closest.js";
import { echo, invisibleNote } from "./echo.js";
import { fail, ok, type ParseResult } from "./result.js";

export interface CommandTokens {
  /** The first word, lower-cased, without a leading `/` or `@botname`. */
  verb: string;
  /** The other words, as typed (addresses are case-sensitive). */
  args: string[];
  /** Telegram's `/verb@botname` in groups: the bot name, for the adapter to compare with its own. */
  mention?: string;
}

// Phones and macOS turn " into “ ” and ' into ‘ ’ as people type, so curly pairs count too.
const QUOTE_PAIRS: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ["'", "'"],
  ["“", "”"],
  ["”", "”"],
  ["„", "“"],
  ["‘", "’"],
  ["«", "»"],
]);
const SPACE = /\s/u;
const EMPTY_LINE = "empty command: type help to see what the bot can do";

/**
 * Splits a command line into verb and args. Quotes keep a word with spaces together. With `words`,
 * only that many words are read and the rest of the line is one more arg, as typed (trimmed;
 * quotes, apostrophes and line breaks kept): a reason or a note is free text, not words.
 */
export function tokenize(text: string, words?: number): ParseResult<CommandTokens> {
  const read = splitWords(text, words);
  if (!read.ok) return read;
  const [first, ...args] = read.value.words;
  if (read.value.rest !== "") args.push(read.value.rest);
  const { verb, mention } = splitMention(first?.startsWith("/") ? first.slice(1) : (first ?? ""));
  if (verb === "") return fail(EMPTY_LINE);
  return ok({ verb: verb.toLowerCase(), args, ...(mention && { mention }) });
}

function splitMention(word: string): { verb: string; mention?: string } {
  const at = word.indexOf("@");
  if (at <= 0) return { verb: word };
  const mention = word.slice(at + 1);
  return { verb: word.slice(0, at), ...(mention && { mention }) };
}

function splitWords(
  line: string,
  max = Number.POSITIVE_INFINITY,
): ParseResult<{ words: string[]; rest: string }> {
  const chars = Array.from(line);
  const words: string[] = [];
  let i = 0;
  while (i < chars.length) {
    if (SPACE.test(chars[i] ?? "")) {
      i++;
      continue;
    }
    if (words.length >= max) return ok({ words, rest: chars.slice(i).join("").trim() });
    const word = readWord(chars, i);
    if (!word.ok) return word;
    words.push(word.value.text);
    i = word.value.next;
  }
  return ok({ words, rest: "" });
}

/** One word from `start`; a quote opens only at the start of a word, so "don't" stays one word. */
function readWord(chars: readonly string[], start: number): ParseResult<{ text: string; next: number }> {
  let i = start;
  let text = "";
  const open = chars[start] ?? "";
  const close = QUOTE_PAIRS.get(open);
  if (close !== undefined) {
    const end = chars.indexOf(close, start + 1);
    if (end === -1) {
      return fail(
        `unclosed quote before ${echo(chars.slice(start + 1).join(""))}: close the ${open} or leave the quotes out`,
      );
    }
    text = chars.slice(start + 1, end).join("");
    i = end + 1;
  }
  while (i < chars.length && !SPACE.test(chars[i] ?? "")) text += chars[i++];
  return ok({ text, next: i });
}

/** One verb of the grammar; structurally a subset of the core's CommandDefinition, which can be passed as is. */
export interface GrammarEntry {
  verb: string;
  subverbs?: readonly string[];
  aliases?: readonly string[];
  /** After this many words (the subverb counted), the rest of the line is one arg as typed. */
  freeTextAfter?: number;
}

/** Slack's umbrella command: `/ops <verb> …`. */
const UMBRELLA_VERB = "ops";

export interface ParsedCommand {
  /** The grammar's verb (an alias is resolved: start → help). */
  verb: string;
  /** For verbs with subverbs, checked and removed from `args`. */
  subverb?: string;
  args: string[];
  mention?: string;
}

/** A whole command line → a known verb (and subverb) with its args, or a line that suggests the right verb. */
export function parseCommandLine(text: string, grammar: readonly GrammarEntry[]): ParseResult<ParsedCommand> {
  // The verb first (behind the umbrella, the second word), then its words as its grammar reads them.
  const head = tokenize(text, 2);
  if (!head.ok) return head;
  const umbrella = head.value.verb === UMBRELLA_VERB;
  const named = umbrella ? head.value.args[0]?.replace(/^\//, "").toLowerCase() : head.value.verb;
  const free = grammar.find((e) => e.verb === named || e.aliases?.includes(named ?? ""))?.freeTextAfter;
  const tokens = tokenize(text, free === undefined ? undefined : free + (umbrella ? 2 : 1));
  if (!tokens.ok) return tokens;
  const { verb: outer, args: outerArgs, mention } = tokens.value;
  const withMention = mention === undefined ? {} : { mention };
  let verb = outer;
  let args = outerArgs;
  if (outer === UMBRELLA_VERB) {
    const [inner, ...rest] = outerArgs;
    if (inner === undefined) return ok({ verb: "help", args: [], ...withMention });
    verb = inner.replace(/^\//, "").toLowerCase();
    args = rest;
  }
  const entry = grammar.find((e) => e.verb === verb || e.aliases?.includes(verb));
  if (entry === undefined) return fail(unknownVerbLine(verb, grammar));
  if (entry.subverbs === undefined) return ok({ verb: entry.verb, args, ...withMention });
  const [sub, ...rest] = args;
  const subverb = sub?.toLowerCase();
  if (subverb === undefined || !entry.subverbs.includes(subverb)) return fail(subverbLine(entry, sub));
  return ok({ verb: entry.verb, subverb, args: rest, ...withMention });
}

function unknownVerbLine(verb: string, grammar: readonly GrammarEntry[]): string {
  const guess = closest(
    verb,
    grammar.map((e) => e.verb),
  );
  const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
  return `unknown command ${echo(verb)}${invisibleNote(verb)}${hint}: type help to see what the bot can do`;
}

function subverbLine(entry: GrammarEntry, given: string | undefined): string {
  const subverbs = entry.subverbs ?? [];
  const forms = subverbs.map((s) => `${entry.verb} ${s}`);
  const choices = forms.length > 1 ? `${forms.slice(0, -1).join(", ")} or ${forms.at(-1)}` : (forms[0] ?? "");
  if (given === undefined) return `${entry.verb} needs a subcommand: use ${choices}`;
  const guess = closest(given.toLowerCase(), subverbs);
  const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
  return `${echo(given)}${invisibleNote(given)} is not a ${entry.verb} subcommand${hint}: use ${choices}`;
}
