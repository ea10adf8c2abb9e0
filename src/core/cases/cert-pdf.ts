import { readFileSync } from "node:fs";

type Fontkit = typeof import("@pdf-lib/fontkit");

import type { PDFFont, PDFPage } from "pdf-lib";
import { chartFontFiles } from "../chart/index.js";

/**
 * The certificate as a PDF, built in process with pdf-lib and the shipped DejaVu Sans (embedded,
 * subset), so any label or name (Cyrillic, CJK punctuation, symbols) renders the same everywhere;
 * no browser. Sections of `label: value` lines, wrapped to the page, on as many A4 pages as needed.
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

/** Splits a line into pieces that fit `width` (long words, like hashes, are cut). */
function wrap(line: string, font: PDFFont, width: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (font.widthOfTextAtSize(candidate, SIZE) <= width) {
      current = candidate;
      continue;
    }
    if (current !== "") out.push(current);
    current = word;
    while (font.widthOfTextAtSize(current, SIZE) > width && current.length > 1) {
      let cut = current.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(current.slice(0, cut), SIZE) > width) cut -= 1;
      out.push(current.slice(0, cut));
      current = current.slice(cut);
    }
  }
  out.push(current);
  return out;
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
  const regular = await doc.embedFont(fonts().regular, { subset: true });
  const bold = await doc.embedFont(fonts().bold, { subset: true });
  const width = A4.width - 2 * MARGIN;
  let page: PDFPage = doc.addPage([A4.width, A4.height]);
  let y = A4.height - MARGIN;
  const draw = (line: string, font: PDFFont, size = SIZE) => {
    if (y < MARGIN + LEADING) {
      page = doc.addPage([A4.width, A4.height]);
      y = A4.height - MARGIN;
    }
    page.drawText(line, { x: MARGIN, y, size, font, color: pdf.rgb(0.1, 0.1, 0.1) });
    y -= size === SIZE ? LEADING : size + 8;
  };
  draw(title, bold, 16);
  for (const section of sections) {
    y -= 6;
    draw(section.title, bold, 12);
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
      page.drawText(piece, { x, y, size: SIZE, font: regular, color: pdf.rgb(0.1, 0.1, 0.1) });
    }
  }
  return doc.save({ useObjectStreams: false });
}
