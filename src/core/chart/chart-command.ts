import type { PriceList } from "../../service/pricing.js";
import { utcDay } from "../activity/facts.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { echo } from "../parse/echo.js";
import { getPriceList } from "../pricing/price-list.js";
import { errorReply, type ImageAttachment, image, publicReply, type Reply, text } from "../reply.js";
import { type ChartArgs, parseChartArgs } from "./chart-args.js";
import { balanceChartImage, type PeriodicName, priceChartImage, spendChartImage } from "./chart-images.js";
import { balanceReadingsNow, energyFeeSun, ledgerOfDays, spendRatePerHour } from "./chart-sources.js";

/**
 * `chart prices [service]`, `chart spend [7|30]`, `chart balance`: a picture posted in the
 * conversation with its one-line summary. Nothing to plot (no periods, no spends, no reading) is
 * said in a sentence, never shown as an empty chart.
 */
const DEFAULT_SERVICE: PeriodicName = "energy_5m";

const pictureReply = (picture: ImageAttachment): Reply => publicReply(picture.summary, [image(picture)]);
const sentence = (line: string): Reply => publicReply(line, [text(line)]);

/** The services of the list that have periods, in the list's order. */
function periodicNames(list: PriceList): PeriodicName[] {
  const services = list.data.services;
  return (Object.keys(services) as PeriodicName[]).filter((name) => {
    const service = services[name];
    return service !== undefined && "periods" in service;
  });
}

async function pricesChart(ctx: CommandContext, wanted: string | undefined): Promise<Reply> {
  const list = await getPriceList(ctx.deps);
  const names = periodicNames(list);
  const name =
    wanted === undefined
      ? names.includes(DEFAULT_SERVICE)
        ? DEFAULT_SERVICE
        : names[0]
      : names.find((n) => n === wanted);
  if (name === undefined) {
    const known = names.length > 0 ? names.join(" or ") : "no service with periods in the price list now";
    return errorReply(`unknown service ${echo(wanted ?? "")}: chart prices takes ${known}`);
  }
  const picture = await priceChartImage(list, name, ctx.deps.now());
  return picture
    ? pictureReply(picture)
    : sentence(`The price list has no ${name} periods to chart right now.`);
}

async function spendChart(ctx: CommandContext, count: number): Promise<Reply> {
  const lastDay = utcDay(ctx.deps.now());
  const days = await ledgerOfDays(ctx.deps, lastDay, count);
  const picture = await spendChartImage(days, await energyFeeSun(ctx.deps));
  return picture
    ? pictureReply(picture)
    : sentence(
        `Nothing was spent through the bot in the last ${count} days (to ${lastDay}): no chart to draw.`,
      );
}

async function balanceChart(ctx: CommandContext): Promise<Reply> {
  const { deps } = ctx;
  const readings = await balanceReadingsNow(deps);
  const picture = await balanceChartImage(
    readings,
    await spendRatePerHour(deps),
    deps.settings.runway,
    deps.now(),
  );
  return picture
    ? pictureReply(picture)
    : sentence(
        "No balance reading yet, so there is nothing to chart: try balance, then chart balance again.",
      );
}

function run(ctx: CommandContext, args: ChartArgs): Promise<Reply> {
  switch (args.kind) {
    case "prices":
      return pricesChart(ctx, args.service);
    case "spend":
      return spendChart(ctx, args.days);
    case "balance":
      return balanceChart(ctx);
  }
}

export const chartCommand: CommandDefinition = {
  verb: "chart",
  subverbs: ["prices", "spend", "balance"],
  role: "viewer",
  summary: "a picture: prices, spend per day, or balance runway",
  usage: "chart prices [energy_5m|energy_1h] | spend [7|30] | balance",
  example: "chart prices energy_5m",
  async run(ctx) {
    const parsed = parseChartArgs(ctx.subverb, ctx.args);
    if (!parsed.ok) return errorReply(parsed.line);
    return run(ctx, parsed.args);
  },
};
