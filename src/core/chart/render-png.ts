import { CHART_FONT_FAMILY, chartFontFiles } from "./fonts.js";

/**
 * SVG → PNG with resvg, off the event loop (libuv's pool), with the project's own font only:
 * system fonts are never looked at, so a chart is the same on a laptop and in the image.
 */
export interface PngOptions {
  width: number;
  /** Font files to draw text with; default: the shipped DejaVu Sans (tests pass [] to see it matter). */
  fontFiles?: readonly string[];
}

export async function svgToPng(svg: string, options: PngOptions): Promise<Uint8Array> {
  // Loaded at the first chart, like ECharts: nothing of it is needed to start the bot.
  const { renderAsync } = await import("@resvg/resvg-js");
  const image = await renderAsync(svg, {
    font: {
      loadSystemFonts: false,
      fontFiles: [...(options.fontFiles ?? chartFontFiles())],
      defaultFontFamily: CHART_FONT_FAMILY,
      sansSerifFamily: CHART_FONT_FAMILY,
    },
    fitTo: { mode: "width", value: options.width },
    logLevel: "off",
  });
  return new Uint8Array(image.asPng());
}
