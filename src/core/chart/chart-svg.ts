import type { EChartsCoreOption } from "echarts/core";
import type { ImageAttachment } from "../reply.js";
import { svgToPng } from "./render-png.js";

/**
 * Chart options → SVG with Apache ECharts' server-side renderer (no DOM, no canvas, no browser),
 * then → PNG (render-png.ts). Every chart is drawn at one size on an opaque light background, so
 * it reads the same in Slack's and Telegram's light and dark themes.
 */

/**
 * ECharts is loaded at the first chart, not at start: its modules take about a second to load on
 * a busy machine, which `npm start` → /healthz must not pay for a picture nobody asked for yet.
 */
let echarts: Promise<typeof import("echarts/core")> | undefined;

function loadEcharts(): Promise<typeof import("echarts/core")> {
  echarts ??= (async () => {
    const [core, charts, components, renderers] = await Promise.all([
      import("echarts/core"),
      import("echarts/charts"),
      import("echarts/components"),
      import("echarts/renderers"),
    ]);
    core.use([
      charts.BarChart,
      charts.LineChart,
      components.GridComponent,
      components.LegendComponent,
      components.MarkAreaComponent,
      components.MarkLineComponent,
      components.TitleComponent,
      renderers.SVGRenderer,
    ]);
    return core;
  })();
  return echarts;
}

export const CHART_WIDTH = 1200;
export const CHART_HEIGHT = 600;

export const THEME = {
  background: "#ffffff",
  text: "#1f2328",
  muted: "#57606a",
  grid: "#d8dee4",
  now: "#cf222e",
  good: "#1a7f37",
  goodArea: "rgba(26, 127, 55, 0.16)",
  areas: ["rgba(87, 96, 106, 0.06)", "rgba(87, 96, 106, 0.13)"],
  series: ["#0969da", "#8250df", "#bc4c00", "#bf3989", "#1b7c83", "#6e7781"],
} as const;

/** The frame every chart shares: background, font, title, legend, grid. */
export function baseOption(title: string, subtitle: string): EChartsCoreOption {
  return {
    animation: false,
    backgroundColor: THEME.background,
    textStyle: { fontFamily: "DejaVu Sans", color: THEME.text },
    title: {
      text: title,
      subtext: subtitle,
      left: 24,
      top: 14,
      textStyle: { fontSize: 22, fontWeight: "bold", color: THEME.text },
      // The summary line: cut at the picture's edge rather than drawn past it.
      subtextStyle: { fontSize: 14, color: THEME.muted, width: 1140, overflow: "truncate" },
    },
    // ECharts measures text without the font: generous gaps keep DejaVu's wider glyphs apart.
    legend: { bottom: 14, left: "center", itemGap: 36, textStyle: { fontSize: 14, color: THEME.text } },
    grid: { left: 88, right: 48, top: 112, bottom: 96 },
  };
}

export async function optionToSvg(
  option: EChartsCoreOption,
  width = CHART_WIDTH,
  height = CHART_HEIGHT,
): Promise<string> {
  const { init } = await loadEcharts();
  const chart = init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** The picture, ready to post: PNG bytes, its size and its one-line summary. */
export async function renderChart(
  option: EChartsCoreOption,
  meta: { filename: string; summary: string; fontFiles?: readonly string[] },
): Promise<ImageAttachment> {
  const svg = await optionToSvg(option);
  const png = await svgToPng(svg, {
    width: CHART_WIDTH,
    ...(meta.fontFiles && { fontFiles: meta.fontFiles }),
  });
  return { filename: meta.filename, png, width: CHART_WIDTH, height: CHART_HEIGHT, summary: meta.summary };
}
