/**
 * Splits Telegram HTML into messages that each fit Telegram's 4096-character limit. Cuts fall on a
 * line break when one is in reach, else after a space, else between two characters — never
 * inside a tag or an entity (`&amp;`). Tags open at a cut are closed at the end of one message
 * and reopened at the start of the next, so every message is valid HTML on its own.
 *
 * Telegram counts the text after parsing (UTF-16 code units, an entity one character, tags
 * nothing), so that is what is measured: markup does not split a reply that fits.
 */
export const TELEGRAM_TEXT_LIMIT = 4096;
/**
 * One reply never becomes more messages than this: past it, the last one says how much was left
 * out. (The core caps its lists; this is the bound for whatever still comes out long.)
 */
export const MAX_REPLY_PARTS = 4;
/** Room kept in each part for the line that says the reply was cut. */
const CUT_NOTE_ROOM = 120;

/**
 * `splitHtml`, with at most `maxParts` parts; the last one ends with a line that says how much was
 * left out. Only the head that can be shown is split, so a huge reply costs no more than a long one.
 */
export function splitReply(html: string, limit = TELEGRAM_TEXT_LIMIT, maxParts = MAX_REPLY_PARTS): string[] {
  if (html.length <= limit * maxParts) {
    const parts = splitHtml(html, limit);
    if (parts.length <= maxParts) return parts;
  }
  const head = html.slice(0, safeCut(html, limit * (maxParts + 1)));
  const kept = splitHtml(head, limit - CUT_NOTE_ROOM).slice(0, maxParts);
  const shownChars = kept.reduce((n, part) => n + part.length, 0);
  const left = Math.max(1, Math.ceil((html.length - shownChars) / limit));
  const note = `\n<i>… cut here: about ${left} more message${left === 1 ? "" : "s"} of this reply not shown.</i>`;
  kept[kept.length - 1] = `${kept[kept.length - 1] ?? ""}${note}`;
  return kept;
}

/** A position at or before `at` that is not inside a tag, an entity or a surrogate pair. */
function safeCut(html: string, at: number): number {
  let cut = Math.min(at, html.length);
  const tagOpen = html.lastIndexOf("<", cut - 1);
  if (tagOpen > html.lastIndexOf(">", cut - 1)) cut = tagOpen;
  const amp = html.lastIndexOf("&", cut - 1);
  if (amp > html.lastIndexOf(";", cut - 1) && cut - amp < 12) cut = amp;
  if (/[\ud800-\udbff]/.test(html.charAt(cut - 1))) cut -= 1;
  return cut;
}

interface OpenTag {
  name: string;
  raw: string;
}

/** A tag, an entity, a newline, or one character (code point) of text. */
const UNIT = /<[^>]*>|&[#A-Za-z0-9]+;|\n|[\s\S]/gu;

export function splitHtml(html: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const units = html.match(UNIT) ?? [];
  if (units.reduce((n, unit) => n + shownLength(unit), 0) <= limit) return html.trim() === "" ? [] : [html];
  const chunks: string[] = [];
  let start = 0;
  let stack: OpenTag[] = [];
  while (start < units.length) {
    const cut = findCut(units, start, stack, limit);
    chunks.push(openTags(stack) + units.slice(start, cut.end).join("") + closeTags(cut.stack));
    stack = cut.stack;
    // The newline a message ends at is the break between the two messages.
    start = units[cut.end] === "\n" ? cut.end + 1 : cut.end;
  }
  return chunks.filter(hasVisibleText);
}

interface Cut {
  /** Index of the first unit of the next message. */
  end: number;
  /** The tags open at `end`. */
  stack: OpenTag[];
}

/** The last good cut from `start` that fits: at a newline, else after a space, else anywhere. */
function findCut(units: readonly string[], start: number, opening: OpenTag[], limit: number): Cut {
  const stack = [...opening];
  let length = 0;
  let atNewline: Cut | undefined;
  let afterSpace: Cut | undefined;
  let anywhere: Cut | undefined;
  for (let i = start; i < units.length; i++) {
    const unit = units[i] ?? "";
    const next = applyTag(unit, stack);
    if (i > start && length + shownLength(unit) > limit) break;
    length += shownLength(unit);
    stack.splice(0, stack.length, ...next);
    if (units[i + 1] === "\n") atNewline = { end: i + 1, stack: [...stack] };
    else if (unit === " ") afterSpace = { end: i + 1, stack: [...stack] };
    anywhere = { end: i + 1, stack: [...stack] };
    if (i + 1 === units.length) return anywhere;
  }
  const cut = atNewline ?? afterSpace ?? anywhere;
  if (!cut) throw new Error("splitHtml: nothing fits in one message");
  return cut;
}

/** What a unit counts for in Telegram's limit: a tag nothing, an entity one character. */
const shownLength = (unit: string): number =>
  unit.startsWith("<") && unit.length > 1 ? 0 : unit.startsWith("&") && unit.length > 1 ? 1 : unit.length;

function applyTag(unit: string, stack: readonly OpenTag[]): OpenTag[] {
  if (!unit.startsWith("<") || unit.length < 3) return [...stack];
  if (unit.startsWith("</")) {
    const name = unit.slice(2, -1).trim().toLowerCase();
    const at = stack.map((t) => t.name).lastIndexOf(name);
    return at === -1 ? [...stack] : stack.slice(0, at);
  }
  const name = /^<([a-z-]+)/i.exec(unit)?.[1]?.toLowerCase();
  return name ? [...stack, { name, raw: unit }] : [...stack];
}

const openTags = (stack: readonly OpenTag[]): string => stack.map((t) => t.raw).join("");
const closeTags = (stack: readonly OpenTag[]): string =>
  [...stack]
    .reverse()
    .map((t) => `</${t.name}>`)
    .join("");

const hasVisibleText = (chunk: string): boolean => chunk.replace(/<[^>]*>/g, "").trim() !== "";
