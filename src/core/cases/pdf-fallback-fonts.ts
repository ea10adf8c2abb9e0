import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Fonts for what DejaVu Sans does not draw (emoji, CJK): Noto Emoji and Noto Sans SC from their
 * Fontsource packages, which ship each font cut into chunks by Unicode range (`unicode.json`).
 * `fallbackFile` names the chunk file that draws a code point, or undefined; pdf-lib embeds only
 * the chunks a document uses, subset, so a certificate grows by the glyphs it shows.
 */
interface Family {
  /** A file the package exports, to find its folder by (its `unicode.json` is not exported). */
  probe: string;
  file(chunk: string): string;
}

const FAMILIES: readonly Family[] = [
  {
    probe: "@fontsource/noto-emoji/files/noto-emoji-0-400-normal.woff",
    file: (chunk) => `files/noto-emoji-${chunk}-400-normal.woff`,
  },
  {
    probe: "@fontsource-variable/noto-sans-sc/files/noto-sans-sc-latin-wght-normal.woff2",
    file: (chunk) => `files/noto-sans-sc-${chunk}-wght-normal.woff2`,
  },
];

interface Chunk {
  from: number;
  to: number;
  path: string;
}

let chunks: Chunk[] | undefined;

/** Every chunk of every family, in family order; asked only for what DejaVu Sans lacks. */
function allChunks(): Chunk[] {
  if (chunks) return chunks;
  const require = createRequire(import.meta.url);
  chunks = FAMILIES.flatMap((family) => {
    const root = dirname(dirname(require.resolve(family.probe)));
    const ranges = JSON.parse(readFileSync(join(root, "unicode.json"), "utf8")) as Record<string, string>;
    return Object.entries(ranges).flatMap(([key, list]) => {
      const path = join(root, family.file(key.replace(/^\[|\]$/g, "")));
      return list.split(",").map((range) => {
        const [from = "0", to = from] = range.trim().replace(/^U\+/i, "").split("-");
        return { from: Number.parseInt(from, 16), to: Number.parseInt(to, 16), path };
      });
    });
  });
  return chunks;
}

/** The chunk file that draws `codePoint`, or undefined when no fallback has it. */
export function fallbackFile(codePoint: number): string | undefined {
  return allChunks().find((c) => codePoint >= c.from && codePoint <= c.to)?.path;
}
