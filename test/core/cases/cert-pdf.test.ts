import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { describe, expect, it } from "vitest";
import { buildPdf } from "../../../src/core/cases/cert-pdf.js";

/**
 * The certificate PDF read back as a reader would: what DejaVu Sans cannot draw (emoji, CJK) is
 * drawn in an embedded Noto fallback, and every line, the title's too, stays inside the margins.
 */
const A4_WIDTH = 595.28;
const MARGIN = 50;

interface Item {
  str: string;
  width: number;
  transform: number[];
  fontName: string;
}

async function read(bytes: Uint8Array): Promise<Item[]> {
  const pdf = await getDocument({ data: bytes.slice() }).promise;
  const items: Item[] = [];
  for (let p = 1; p <= pdf.numPages; p += 1)
    for (const item of (await (await pdf.getPage(p)).getTextContent()).items)
      if ("str" in item && item.str !== "") items.push(item as Item);
  return items;
}

describe("certificate PDF", () => {
  it("draws emoji and CJK in an embedded Noto font, and wraps a long title inside the margin", async () => {
    const title = `AML certificate · TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b for 客户 ✅ 🚀`;
    const bytes = await buildPdf(
      title,
      [{ title: "AML case", lines: ["Case C1: cleared by olga: 客户文件已核实 ✅ docs ok 🚀👍🏽"] }],
      "Verification code: OPS-CERT-AAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAAAAAA",
    );
    const raw = Buffer.from(bytes).toString("latin1");
    expect(raw).toMatch(/\/BaseFont \/NotoSansSC/);
    expect(raw).toMatch(/\/BaseFont \/NotoEmoji/);

    const items = await read(bytes);
    const text = items.map((i) => i.str).join("");
    for (const shown of ["客户文件已核实", "🚀", "✅", "TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b"])
      expect(text).toContain(shown);
    // CJK and emoji are items of their own fonts, not DejaVu's blanks.
    const fontOf = (s: string) => items.find((i) => i.str.includes(s))?.fontName;
    expect(fontOf("客户文件")).not.toBe(fontOf("Case C1"));
    expect(fontOf("🚀")).not.toBe(fontOf("Case C1"));
    for (const item of items)
      expect(item.transform[4]! + item.width).toBeLessThanOrEqual(A4_WIDTH - MARGIN + 0.5);
  });
});
