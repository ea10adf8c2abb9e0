/**
 * How user input is shown inside an error line. Input is untrusted: it may carry newlines that
 * would break the one-line rule, bidi overrides or zero-width characters that disguise text, or
 * a whole pasted document. 42 keeps a full EVM address (the longest common address) readable.
 */
export const ECHO_MAX_CHARS = 42;

// Cc: C0/C1 controls (newline, tab, escape…); Cf: invisible format characters (bidi overrides,
// zero-width space/joiner, BOM); Zl/Zp: line and paragraph separators.
const UNSAFE_CHARS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const UNSAFE_CHAR = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u; // no `g`: `test` on a global regex keeps state

/** The input, cleaned and cut to ECHO_MAX_CHARS (counted in code points), in double quotes. */
export function echo(input: string): string {
  const chars = Array.from(input.replace(UNSAFE_CHARS, ""));
  const shown =
    chars.length > ECHO_MAX_CHARS ? `${chars.slice(0, ECHO_MAX_CHARS - 1).join("")}…` : chars.join("");
  return `"${shown}"`;
}

/** One character as a person can read it: printable ASCII as itself, anything else with its code point. */
export function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code >= 0x21 && code <= 0x7e) return `"${char}"`;
  if (/[\n\r\v\f\u0085\u2028\u2029]/u.test(char)) return `a line break (${hex})`;
  if (/\s/u.test(char)) return `a space (${hex})`;
  if (UNSAFE_CHAR.test(char)) return `an invisible character (${hex})`;
  return `"${char}" (${hex})`;
}

/**
 * " (it contains an invisible character (U+200B))" when the text hides a character a person cannot
 * see, else "": an error line that echoes `\u200Bhelp` as "help" must say why "help" was refused.
 */
export function invisibleNote(input: string): string {
  const hidden = Array.from(input).find((char) => UNSAFE_CHAR.test(char));
  return hidden === undefined ? "" : ` (it contains ${describeChar(hidden)})`;
}

/** True when the text has nothing a person can see: only spaces, controls and invisible characters. */
export const isInvisible = (input: string): boolean => input.replace(UNSAFE_CHARS, "").trim() === "";

/** Characters as a person counts them (grapheme clusters), not UTF-16 code units. */
export function charCount(input: string): number {
  let n = 0;
  for (const _ of GRAPHEMES.segment(input)) n += 1;
  return n;
}
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** 61000 → "61,000": the same grouping the amount parser accepts. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
