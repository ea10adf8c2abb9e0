import { describe, expect, it } from "vitest";
import { splitHtml, TELEGRAM_TEXT_LIMIT } from "../../../adapters/telegram/split.js";
import { parseTelegramHtml } from "../../fakes/telegram-html.js";

const visible = (html: string): string => {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(`${parsed.error} in ${html}`);
  return parsed.text;
};

describe("splitHtml", () => {
  it("keeps a message within the limit as it is", () => {
    expect(splitHtml("<b>a</b> &amp; b")).toEqual(["<b>a</b> &amp; b"]);
    expect(splitHtml("   ")).toEqual([]);
  });

  it("cuts at the last line break that fits, and drops that break", () => {
    const html = ["aaaa", "bbbb", "cccc"].join("\n");
    expect(splitHtml(html, 10)).toEqual(["aaaa\nbbbb", "cccc"]);
  });

  it("closes the tags open at a cut and reopens them in the next message", () => {
    const html = `<b>head</b>\n<code>one\ntwo\nthree</code> tail`;
    const chunks = splitHtml(html, 12);
    expect(chunks).toEqual(["<b>head</b>\n<code>one\ntwo</code>", "<code>three</code> tail"]);
    expect(chunks.map(visible).join("\n")).toBe(visible(html));
  });

  it("never cuts inside an entity or a tag: a long line is cut after a space, else between characters", () => {
    const words = `${"&amp;&lt;&gt; ".repeat(10)}<i>x</i>`;
    for (const chunk of splitHtml(words, 6)) {
      expect(visible(chunk).length).toBeLessThanOrEqual(6);
    }
    const solid = "&amp;".repeat(30);
    const chunks = splitHtml(solid, 12);
    expect(chunks).toEqual([...Array.from({ length: 2 }, () => "&amp;".repeat(12)), "&amp;".repeat(6)]);
  });

  it("measures what Telegram counts: the text after parsing, so markup never splits a reply that fits", () => {
    const html = `<b>${"&lt;".repeat(3000)}</b>`;
    expect(html.length).toBeGreaterThan(TELEGRAM_TEXT_LIMIT);
    expect(splitHtml(html)).toEqual([html]);
  });

  it("keeps a surrogate pair (emoji) whole", () => {
    const chunks = splitHtml("😀".repeat(10), 5);
    expect(chunks.join("")).toBe("😀".repeat(10));
    for (const c of chunks) expect(c).toMatch(/^(😀)+$/);
  });

  it("splits a 20 000-character reply into valid messages of at most 4096 characters, losing nothing", () => {
    const lines = Array.from(
      { length: 400 },
      (_, i) => `<b>${i}</b> <code>x &lt;y&gt; &amp; z</code> ${"w".repeat(i % 40)}`,
    );
    const html = `<i>${lines.join("\n")}</i>`;
    const chunks = splitHtml(html);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) expect(visible(c).length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(chunks.map(visible).join("\n")).toBe(visible(html));
    for (const c of chunks) expect(c.startsWith("<i>") && c.endsWith("</i>")).toBe(true);
  });
});
