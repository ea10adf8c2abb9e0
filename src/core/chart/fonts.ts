import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The font every chart is drawn with, shipped in the repository (`assets/fonts/`, DejaVu Sans with
 * its licence) and copied into the image by the Dockerfile: the image has no system fonts, and a
 * chart must read the same on every machine. Found by walking up from this module, so it works
 * from `src/` (tsx) and from `dist/src/` (the built program) alike.
 */
export const CHART_FONT_FAMILY = "DejaVu Sans";
const FONT_FILES = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"];
const FONTS_DIR = join("assets", "fonts");

let found: string[] | undefined;

/** Absolute paths of the chart fonts; throws when the folder is missing (a broken install). */
export function chartFontFiles(): string[] {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, FONTS_DIR);
    if (existsSync(join(candidate, FONT_FILES[0] ?? ""))) {
      found = FONT_FILES.map((name) => join(candidate, name));
      return found;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`chart fonts not found: ${FONTS_DIR}/ is missing from the install`);
    dir = parent;
  }
}
