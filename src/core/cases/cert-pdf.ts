import { readFileSync } from "node:fs";

type Fontkit = typeof import("@pdf-lib/fontkit");

import type { Color, PDFDocument, PDFFont, PDFPage } from "pdf-lib";
import { chartFontFiles } from "../chart/index.js";
import { fallbackFile } from "./pdf-fallback-fonts.js";

/**
 * The certificate as a PDF, built in process with pdf-lib and the shipped DejaVu Sans (embedded,
 * subset), so any label or name (Cyrillic, CJK punctuation, symbols) renders the same everywhere;
 * what DejaVu lacks (emoji, CJK) is drawn in a Noto fallback (pdf-fallback-fonts.ts); no browser. Sections of `label: value` lines, wrapped to the page, on as many A4 pages as needed.
 */
export interface PdfSection {
  title: string;
  lines: readonly string[];
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const SIZE = 10;
const LEADING = 14;

let fontBytes: { regular: Uint8Array; bold: Uint8Array } | undefined;
function fonts(): { regular: Uint8Array; bold: Uint8Array } {
  if (fontBytes) return fontBytes;
  const [regular = "", bold = ""] = chartFontFiles();
  fontBytes = { regular: readFileSync(regular), bold: readFileSync(bold) };
  return fontBytes;
}

/**
 * fontkit with its parse of each font kept: pdf-lib parses the font bytes for every document, and
 * parsing DejaVu twice was most of a certificate's build time. A parsed font is only read after
 * (each document makes its own subset), so one parse serves every certificate.
 */
function keepingParses(fontkit: Fontkit): Fontkit {
  const parsed = new Map<Uint8Array, ReturnType<Fontkit["create"]>>();
  return {
    ...fontkit,
    create(data, postscriptName) {
      const key = data as Uint8Array;
      const known = postscriptName === undefined ? parsed.get(key) : undefined;
      if (known) return known;
      const font = fontkit.create(data, postscriptName);
      if (postscriptName === undefined) parsed.set(key, font);
      return font;
    },
  };
}

type PdfLibraries = { pdf: typeof import("pdf-lib"); fontkit: Fontkit; qrcode: typeof import("qrcode") };
let libraries: Promise<PdfLibraries> | undefined;

/**
 * pdf-lib and fontkit, loaded on first use (half a second of a start that does not need them);
 * the wiring calls it once the bot is up, so the first certificate does not wait for it either.
 */
export function loadPdfLibraries(): Promise<PdfLibraries> {
  libraries ??= Promise.all([import("pdf-lib"), import("@pdf-lib/fontkit"), import("qrcode")]).then(
    ([pdf, fontkit, qrcode]) => ({ pdf, fontkit: keepingParses(fontkit.default), qrcode: qrcode.default }),
  );
  return libraries;
}

/** The side of the printed QR code, in points (about 3 cm: read by any phone at arm's length). */
const QR_SIZE = 85;

/**
 * Text drawn in the primary font where it has the glyph, else in the fallback that has it (emoji,
 * CJK): a line is measured and drawn as runs of one font each.
 */
interface Typeset {
  width(text: string, size: number): number;
  draw(page: PDFPage, text: string, at: { x: number; y: number; size: number }): void;
}

/** Joiners and variation selectors stay with the character before them (an emoji sequence). */
const JOINS = /^[\u200d\ufe0e\ufe0f\u{e0020}-\u{e007f}]$/u;

function typeset(primary: PDFFont, fallbackOf: (codePoint: number) => PDFFont | undefined, color: Color) {
  const has = new Set(primary.getCharacterSet());
  const runs = (text: string): { font: PDFFont; text: string }[] => {
    const out: { font: PDFFont; text: string }[] = [];
    for (const char of Array.from(text)) {
      const cp = char.codePointAt(0) ?? 0;
      const last = out.at(-1);
      const font = has.has(cp) ? primary : JOINS.test(char) && last ? last.font : (fallbackOf(cp) ?? primary);
      if (last?.font === font) last.text += char;
      else out.push({ font, text: char });
    }
    return out;
  };
  const set: Typeset = {
    width: (text, size) => runs(text).reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0),
    draw(page, text, { x, y, size }) {
      let left = x;
      for (const run of runs(text)) {
        page.drawText(run.text, { x: left, y, size, font: run.font, color });
        left += run.font.widthOfTextAtSize(run.text, size);
      }
    },
  };
  return set;
}

/** Splits a line into pieces that fit `width` (long words, like hashes or CJK text, are cut). */
function wrap(line: string, font: Typeset, width: number, size = SIZE): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (font.width(candidate, size) <= width) {
      current = candidate;
      continue;
    }
    if (current !== "") out.push(current);
    let chars = Array.from(word);
    while (chars.length > 1 && font.width(chars.join(""), size) > width) {
      let cut = chars.length - 1;
      while (cut > 1 && font.width(chars.slice(0, cut).join(""), size) > width) cut -= 1;
      out.push(chars.slice(0, cut).join(""));
      chars = chars.slice(cut);
    }
    current = chars.join("");
  }
  out.push(current);
  return out;
}

/** Each fallback file read once: the same bytes let fontkit's kept parse serve every document. */
const fallbackBytes = new Map<string, Uint8Array>();
function bytesOf(file: string): Uint8Array {
  let bytes = fallbackBytes.get(file);
  if (bytes === undefined) {
    bytes = readFileSync(file);
    fallbackBytes.set(file, bytes);
  }
  return bytes;
}

/** The fallback fonts the texts need, embedded (subset) once each; a code point → its font. */
async function embedFallbacks(doc: PDFDocument, primary: PDFFont, texts: readonly string[]) {
  const has = new Set(primary.getCharacterSet());
  const files = new Map<number, string>();
  for (const text of texts)
    for (const char of Array.from(text)) {
      const cp = char.codePointAt(0) ?? 0;
      const file = has.has(cp) || files.has(cp) ? undefined : fallbackFile(cp);
      if (file !== undefined) files.set(cp, file);
    }
  const embedded = new Map<string, PDFFont>();
  for (const file of new Set(files.values()))
    embedded.set(file, await doc.embedFont(bytesOf(file), { subset: true }));
  return (cp: number): PDFFont | undefined => {
    const file = files.get(cp);
    return file === undefined ? undefined : embedded.get(file);
  };
}

/**
 * `link`: a URL printed under the footer with its QR code beside it (vector squares, so it stays
 * sharp at any zoom).
 */
export async function buildPdf(
  title: string,
  sections: readonly PdfSection[],
  footer: string,
  link?: string,
): Promise<Uint8Array> {
  const { pdf, fontkit, qrcode } = await loadPdfLibraries();
  const doc = await pdf.PDFDocument.create();
  doc.registerFontkit(fontkit);
  doc.setTitle(title);
  doc.setProducer("opsbot");
  const regularFont = await doc.embedFont(fonts().regular, { subset: true });
  const boldFont = await doc.embedFont(fonts().bold, { subset: true });
  const texts = [title, footer, ...sections.flatMap((s) => [s.title, ...s.lines])];
  const fallbackOf = await embedFallbacks(doc, regularFont, texts);
  const color = pdf.rgb(0.1, 0.1, 0.1);
  const regular = typeset(regularFont, fallbackOf, color);
  const bold = typeset(boldFont, fallbackOf, color);
  const width = A4.width - 2 * MARGIN;
  let page: PDFPage = doc.addPage([A4.width, A4.height]);
  let y = A4.height - MARGIN;
  const draw = (line: string, font: Typeset, size = SIZE) => {
    if (y < MARGIN + LEADING) {
      page = doc.addPage([A4.width, A4.height]);
      y = A4.height - MARGIN;
    }
    font.draw(page, line, { x: MARGIN, y, size });
    y -= size === SIZE ? LEADING : size + 8;
  };
  for (const piece of wrap(title, bold, width, 16)) draw(piece, bold, 16);
  for (const section of sections) {
    y -= 6;
    for (const piece of wrap(section.title, bold, width, 12)) draw(piece, bold, 12);
    for (const line of section.lines) for (const piece of wrap(line, regular, width)) draw(piece, regular);
  }
  y -= 6;
  for (const piece of wrap(footer, regular, width)) draw(piece, regular);
  if (link !== undefined) {
    if (y < MARGIN + QR_SIZE + LEADING * 2) {
      page = doc.addPage([A4.width, A4.height]);
      y = A4.height - MARGIN;
    }
    const modules = qrcode.create(link, { errorCorrectionLevel: "M" }).modules;
    const cell = QR_SIZE / modules.size;
    const top = y;
    for (let row = 0; row < modules.size; row += 1)
      for (let col = 0; col < modules.size; col += 1)
        if (modules.get(row, col))
          page.drawRectangle({
            x: MARGIN + col * cell,
            y: top - (row + 1) * cell,
            width: cell,
            height: cell,
            color: pdf.rgb(0, 0, 0),
          });
    y = top - 4;
    const textWidth = width - QR_SIZE - 12;
    const x = MARGIN + QR_SIZE + 12;
    for (const piece of ["Check this certificate online:", ...wrap(link, regular, textWidth)]) {
      y -= LEADING;
      regular.draw(page, piece, { x, y, size: SIZE });
    }
  }
  return doc.save({ useObjectStreams: false });
}
