import { capList, clip, formatTime, moreLine, shortAddress, txSpan } from "../format.js";
import { code, plain, type Span } from "../reply.js";

/**
 * The pieces every notice renderer shares (src/core/<feature>/…-notices-render.ts). Every value
 * comes from outside: text is clipped, and a hash becomes a link only when it has the shape of a
 * TRON transaction hash.
 */
export type Item = [label: string, value: Span | string | Span[]];

/** A notice links this many hashes at most: 500 of them would flood a chat (18 Telegram messages). */
const MAX_TX_LINKS = 10;

/** The first hashes, comma separated, then "… and N more"; "none" when the service sent none. */
export function txSpans(explorerTxUrl: string, hashes: readonly string[]): Span[] {
  if (hashes.length === 0) return [plain("none")];
  const { shown, more } = capList(hashes, MAX_TX_LINKS);
  const spans = shown.flatMap((hash, i) =>
    (i === 0 ? [] : [plain(", ")]).concat(txSpan(explorerTxUrl, hash)),
  );
  if (more > 0) spans.push(plain(` ${moreLine(more)} (${hashes.length} in all)`));
  return spans;
}

export const addressSpan = (address: string | undefined): Span =>
  code(address ? clip(address, 60) : "unknown");
export const shortOf = (address: string | undefined): string =>
  address ? shortAddress(clip(address, 60)) : "?";
export const when = (iso: string | undefined): string | undefined =>
  iso ? formatTime(clip(iso, 40)) : undefined;

export function withOptional(items: Item[], optional: [string, string | undefined][]): Item[] {
  for (const [label, value] of optional) if (value !== undefined) items.push([label, value]);
  return items;
}
