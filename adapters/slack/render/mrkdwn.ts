import type { Span } from "../../../src/core/index.js";

/**
 * Span text → Slack mrkdwn. Every span text is raw and much of it comes from outside (service
 * messages, labels, addresses), so it is made inert before our own markup is added:
 *
 * - `&`, `<`, `>` become entities (Slack's only escapes), which defuses `<!channel>`, `<@U…>` and
 *   `<http://x|y>` links;
 * - the formatting markers `*`, `_`, `~`, `` ` `` are swapped for look-alike characters. Slack has
 *   no backslash escape, and zero-width tricks depend on its parser; a look-alike cannot format.
 *   An `_` between two letters or digits stays: Slack never formats inside a word, and ids like
 *   `client_order_id` should copy as they are;
 * - bare `@channel` / `@here` / `@everyone` get a word joiner after the `@`, in case a client or a
 *   later `link_names` would turn them into mentions;
 * - control characters (but newline and tab) and bidi overrides are dropped, so a text cannot
 *   read differently from what it is.
 */
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
const LOOK_ALIKES: Record<string, string> = { "*": "∗", _: "ˍ", "~": "∼", "`": "ˋ" };
const CONTROL = /[^\P{Cc}\n\t]|[\u202a-\u202e\u2066-\u2069]/gu;
const MARKERS = /[*~`]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const BROADCAST = /@(channel|here|everyone)\b/gi;
const WORD_JOINER = "\u2060";

/** Drops control characters (keeps newline and tab) and bidi overrides. */
const stripControls = (text: string): string => text.replace(CONTROL, "");

/** Slack's three entities; safe for mrkdwn and for the inside of a link. */
const escapeEntities = (text: string): string => text.replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);

/** Outside text as inert mrkdwn: no markup, no mention, no link survives. */
export function inertText(text: string): string {
  const neutral = stripControls(text)
    .replace(MARKERS, (c) => LOOK_ALIKES[c] ?? c)
    .replace(BROADCAST, `@${WORD_JOINER}$1`);
  return escapeEntities(neutral);
}

/** Text for a `plain_text` object (headers, button labels): Slack shows it as is, so only controls go. */
export const plainText = (text: string): string => stripControls(text);

/**
 * A link target Slack may show: http(s) only, normalised by the URL parser (which encodes spaces,
 * quotes and angle brackets), with `|` encoded because it would end the target, and `&` as an entity.
 */
export function safeHref(href: string): string | undefined {
  if (!URL.canParse(href)) return undefined;
  const url = new URL(href);
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return escapeEntities(url.href.replace(/\|/g, "%7C").replace(/[<>]/g, encodeURIComponent));
}

/** Wraps each line's text in `marker`, keeping surrounding spaces outside (Slack needs them there). */
function wrapLines(text: string, marker: string): string {
  return text
    .split("\n")
    .map((line) => {
      const match = /^(\s*)(.*?)(\s*)$/s.exec(line);
      const [, lead = "", body = "", trail = ""] = match ?? [];
      return body === "" ? line : `${lead}${marker}${body}${marker}${trail}`;
    })
    .join("\n");
}

/** Code spans show their text literally; only a backtick (which would close the span) is swapped. */
function codeText(text: string): string {
  return escapeEntities(stripControls(text).replace(/`/g, LOOK_ALIKES["`"] ?? "'"));
}

/** Slack's mention syntax for a user or user-group id; anything else is shown as plain text. */
function mentionOf(id: string): string | undefined {
  if (/^[UW][A-Z0-9]{2,}$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]{2,}$/.test(id)) return `<!subteam^${id}>`;
  return undefined;
}

export function spanToMrkdwn(span: Span): string {
  const mention = span.mention === undefined ? undefined : mentionOf(span.mention);
  if (mention !== undefined) return mention;
  const styled = styleSpan(span);
  if (span.href === undefined) return styled;
  const target = safeHref(span.href);
  if (target === undefined) return styled;
  return span.text === span.href || span.text === "" ? `<${target}>` : `<${target}|${styled}>`;
}

function styleSpan(span: Span): string {
  switch (span.style) {
    case "bold":
      return wrapLines(inertText(span.text), "*");
    case "italic":
      return wrapLines(inertText(span.text), "_");
    case "code":
      return wrapLines(codeText(span.text), "`");
    case undefined:
      return inertText(span.text);
  }
}

export const spansToMrkdwn = (spans: readonly Span[]): string => spans.map(spanToMrkdwn).join("");

/**
 * Cuts rendered mrkdwn to `max` characters with an ellipsis, never inside an entity (`&amp;`) or a
 * link (`<…|…>`) and never between the two halves of a surrogate pair.
 */
export function clipMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  cut = cut.replace(/&[a-z]{0,4}$/, "").replace(/<[^>]*$/, "");
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Cuts plain text to `max` characters with an ellipsis (surrogate-safe). */
export function clipPlain(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}
