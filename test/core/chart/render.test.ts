import { decode } from "fast-png";
import { describe, expect, it } from "vitest";
import { CHART_HEIGHT, CHART_WIDTH, optionToSvg, renderChart } from "../../../src/core/chart/chart-svg.js";
import { buildPriceChart } from "../../../src/core/chart/price-chart-data.js";
import { priceChartOption } from "../../../src/core/chart/price-chart-options.js";
import type { PeriodicService } from "../../../src/service/pricing.js";

/**
 * The picture itself: a PNG that decodes at the promised size, with a drawing on it (many
 * colours, most of it not background), and text drawn with the font shipped in assets/fonts:
 * without that font the same chart loses its text.
 */
const service: PeriodicService = {
  unit: "sun",
  pricing_type: "periodic",
  description: "Energy for 5 minutes",
  cache_ttl: 60,
  current_period: "owl",
  periods: [
    { id: "owl", label: "Owl shift", start: "20:00", end: "06:00", is_current: true, price: 57, tiers: null },
    { id: "day", label: "Daylight", start: "06:00", end: "20:00", is_current: false, price: 38, tiers: null },
  ],
};
const data = buildPriceChart("energy_5m", service, Date.parse("2026-11-26T22:00:00Z"));
if (!data) throw new Error("the sample list has periods");

/** The decoded image, and the colour of pixel `i` as one number (0xRRGGBB). */
const pixelsOf = (png: Uint8Array) => {
  const image = decode(png);
  const { channels, data } = image;
  const at = (i: number) =>
    ((data[i * channels] ?? 0) << 16) | ((data[i * channels + 1] ?? 0) << 8) | (data[i * channels + 2] ?? 0);
  return { image, at };
};
const WHITE = 0xffffff;

describe("chart rendering", () => {
  it("is a PNG of 1200×600 with an opaque background and a drawing on it", async () => {
    const picture = await renderChart(priceChartOption(data), { filename: "p.png", summary: data.summary });
    expect(picture).toMatchObject({ width: CHART_WIDTH, height: CHART_HEIGHT, summary: data.summary });
    const { image, at } = pixelsOf(picture.png);
    expect([image.width, image.height]).toEqual([1200, 600]);
    const count = image.width * image.height;
    if (image.channels === 4) {
      // Opaque everywhere: the chart never shows the chat's own (dark or light) background through.
      const alphas = new Set<number>();
      for (let i = 0; i < count; i++) alphas.add(image.data[i * 4 + 3] ?? 0);
      expect([...alphas]).toEqual([255]);
    }
    const colours = new Map<number, number>();
    for (let i = 0; i < count; i++) colours.set(at(i), (colours.get(at(i)) ?? 0) + 1);
    const background = colours.get(WHITE) ?? 0;
    expect(colours.size).toBeGreaterThan(50);
    // Shaded periods, lines and text: well over a tenth of the picture is not the background.
    expect(1 - background / count).toBeGreaterThan(0.1);
  });

  it("draws its text with the shipped font: without it, the title and labels are missing", async () => {
    const meta = { filename: "p.png", summary: data.summary };
    const withFont = pixelsOf((await renderChart(priceChartOption(data), meta)).png);
    const withoutFont = pixelsOf((await renderChart(priceChartOption(data), { ...meta, fontFiles: [] })).png);
    // The title's band (top left): dark glyph pixels with the font, plain background without it.
    const dark = (p: ReturnType<typeof pixelsOf>) => {
      let n = 0;
      for (let y = 10; y < 50; y++) {
        for (let x = 20; x < 600; x++) {
          const c = p.at(y * 1200 + x);
          if ((c >> 16) + ((c >> 8) & 0xff) + (c & 0xff) < 200) n++;
        }
      }
      return n;
    };
    expect(dark(withFont)).toBeGreaterThan(500);
    expect(dark(withoutFont)).toBe(0);
    let differing = 0;
    for (let i = 0; i < 1200 * 600; i++) if (withFont.at(i) !== withoutFont.at(i)) differing++;
    expect(differing).toBeGreaterThan(2_000);
  });

  it("draws labels from the price list as text, never as markup", async () => {
    const hostile: PeriodicService = {
      ...service,
      periods: [
        {
          id: "x",
          label: '<b>Owl</b> & "co"',
          start: "00:00",
          end: "24:00",
          is_current: true,
          price: 5,
          tiers: null,
        },
      ],
    };
    const chart = buildPriceChart("energy_5m", hostile, Date.parse("2026-11-26T22:00:00Z"));
    if (!chart) throw new Error("one period fills the day");
    const svg = await optionToSvg(priceChartOption(chart));
    expect(svg).toContain("&lt;b&gt;Owl&lt;/b&gt; &amp; &quot;co&quot;");
    expect(svg).not.toContain("<b>");
    const picture = await renderChart(priceChartOption(chart), { filename: "x.png", summary: chart.summary });
    expect(decode(picture.png).width).toBe(1200);
  });
});
