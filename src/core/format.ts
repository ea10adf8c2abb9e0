import Big from "big.js";
import { formatCount } from "./parse/echo.js";
import { code, link, type Span } from "./reply.js";

/**
 * Small formatters shared by the renderers. Provider numbers arrive as decimal strings and stay
 * exact: big.js does the arithmetic, never a float.
 */

/** Thousands separators on the integer part of a plain decimal: "12345.5" → "12,345.5". */
function groupDigits(plain: string): string {
  const [whole = "0", fraction] = plain.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A decimal string as written by a person: no trailing zeros, no exponent. Non-decimals pass through. */
export function formatDecimal(decimal: string): string {
  try {
    return groupDigits(new Big(decimal).toFixed());
  } catch {
    return decimal;
  }
}

/** "3.266667" + "TRX" → "3.266667 TRX"; "1.500000" → "1.5 TRX". */
export function formatAmount(decimal: string, currency = "TRX"): string {
  return `${formatDecimal(decimal)} ${currency}`;
}

/** True for a decimal string whose value is zero ("0", "0.000000"). */
export function isZeroDecimal(decimal: string): boolean {
  try {
    return new Big(decimal).eq(0);
  } catch {
    return false;
  }
}

/**
 * A share_fraction (decimal string between 0 and 1) as a percentage with one decimal:
 * "0.523" → "52.3%". A share too small to show is "<0.1%", so it never reads as zero.
 */
export function formatShare(fraction: string): string {
  let percent: Big;
  try {
    percent = new Big(fraction).times(100);
  } catch {
    return fraction;
  }
  if (percent.gt(0) && percent.lt("0.05")) return "<0.1%";
  return `${percent.round(1, Big.roundHalfUp).toFixed()}%`;
}

/** A share_fraction as a Big for sorting; unreadable values sort last. */
export function shareValue(fraction: string): Big {
  try {
    return new Big(fraction);
  } catch {
    return new Big(-1);
  }
}

/**
 * A score on the provider's own scale, never rescaled: "9.80" of max 10 → "9.8 / 10";
 * null → "no triggers" (the spec: a null score means no triggers were detected).
 */
export function formatScore(score: string | null, scale: { max: number }): string {
  if (score === null) return "no triggers";
  return `${formatDecimal(score)} / ${formatDecimal(String(scale.max))}`;
}

/** A long address cut in the middle, for lists: "TJRabPrwbZy4…3xFn". Short ones stay whole. */
export function shortAddress(address: string, head = 8, tail = 4): string {
  const chars = Array.from(address);
  if (chars.length <= head + tail + 1) return address;
  return `${chars.slice(0, head).join("")}…${chars.slice(-tail).join("")}`;
}

/**
 * An ISO 8601 time (any number of fraction digits, as version 2 writes microseconds) as
 * "2025-03-01 12:00:05 UTC". Anything else is shown as it came.
 */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]00:?00)$/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** Milliseconds since the epoch → "2025-03-01 12:00:05 UTC". */
export const formatEpoch = (ms: number): string => formatTime(new Date(ms).toISOString());

/** "1 address", "3 addresses": the word is given in both forms because English plurals vary. */
export const plural = (count: number, one: string, many: string): string =>
  `${formatCount(count)} ${count === 1 ? one : many}`;

/** Text from outside (entity names, labels) cut to a length that keeps a line a line. */
export function clip(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/gu, " ").trim();
  const chars = Array.from(oneLine);
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : oneLine;
}

/** The first `max` items, and how many were left out ("… and N more"). */
export function capList<T>(items: readonly T[], max: number): { shown: T[]; more: number } {
  return { shown: items.slice(0, max), more: Math.max(0, items.length - max) };
}

/** The "… and N more" line of a capped list. */
export const moreLine = (more: number): string => `… and ${formatCount(more)} more`;

const TX_HASH = /^[0-9a-fA-F]{64}$/;

/**
 * One transaction hash: a short link to the explorer, or the text as it came when it is not a
 * hash (a value from outside never becomes part of a URL unchecked).
 */
export function txSpan(explorerTxUrl: string, hash: string): Span {
  if (!TX_HASH.test(hash)) return code(clip(hash, 80));
  return link(`${hash.slice(0, 10)}…${hash.slice(-6)}`, `${explorerTxUrl}${hash.toLowerCase()}`);
}

/** "<1 s", "12 s", "3 min", "2 h": how old a copy is, rounded down. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 1) return "<1 s";
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h`;
}
