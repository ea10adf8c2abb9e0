/**
 * Telegram's `parse_mode: "HTML"` rules, as strict as the Bot API: only its tags, balanced, and no
 * bare `<`, `>` or `&`. The fake Bot API refuses what Telegram would refuse ("can't parse
 * entities"), so a renderer that forgets to escape fails its tests instead of passing them.
 */
const ALLOWED_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "tg-emoji",
  "code",
  "pre",
  "blockquote",
]);
const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type HtmlParse = { ok: true; text: string } | { ok: false; error: string };

/** The visible text of a Telegram HTML message, or the Bot API's error description. */
export function parseTelegramHtml(html: string): HtmlParse {
  const stack: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const char = html[i] ?? "";
    if (char === "<") {
      const end = html.indexOf(">", i);
      if (end === -1) return fail(`unclosed start tag at byte offset ${i}`);
      const problem = applyTag(html.slice(i + 1, end), stack);
      if (problem) return fail(problem);
      i = end + 1;
    } else if (char === "&") {
      const end = html.indexOf(";", i);
      const decoded = end === -1 ? undefined : decodeEntity(html.slice(i + 1, end));
      if (decoded === undefined) return fail(`unsupported entity or bare "&" at byte offset ${i}`);
      text += decoded;
      i = end + 1;
    } else if (char === ">") {
      return fail(`unexpected ">" at byte offset ${i}`);
    } else {
      text += char;
      i += 1;
    }
  }
  if (stack.length > 0) return fail(`can't find end tag corresponding to start tag "${stack.at(-1)}"`);
  return { ok: true, text };
}

function applyTag(inner: string, stack: string[]): string | undefined {
  if (inner.startsWith("/")) {
    const name = inner.slice(1).trim().toLowerCase();
    if (stack.at(-1) !== name) return `unmatched end tag "${name}"`;
    stack.pop();
    return undefined;
  }
  const match = /^([a-z-]+)(\s+[a-z-]+="[^"<>]*")*\s*$/i.exec(inner);
  const name = match?.[1]?.toLowerCase();
  if (!name || !ALLOWED_TAGS.has(name)) return `unsupported start tag "${inner.split(/\s/)[0]}"`;
  if (name === "a" && !/\shref="[^"]+"/.test(inner)) return "a tag without href";
  stack.push(name);
  return undefined;
}

function decodeEntity(body: string): string | undefined {
  if (body in NAMED_ENTITIES) return NAMED_ENTITIES[body];
  const numeric = /^#(x[0-9a-f]+|[0-9]+)$/i.exec(body)?.[1];
  if (!numeric) return undefined;
  const code = numeric.startsWith("x") ? Number.parseInt(numeric.slice(1), 16) : Number(numeric);
  return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

const fail = (detail: string): HtmlParse => ({
  ok: false,
  error: `Bad Request: can't parse entities: ${detail}`,
});
