import type { CoreDeps } from "../deps.js";
import { image, type Reply } from "../reply.js";
import type { BalanceLevels } from "./balance-chart-data.js";
import { balanceChartImage, spendChartImage } from "./chart-images.js";
import { balanceReadings, energyFeeSun, ledgerOfDays, spendRatePerHour } from "./chart-sources.js";

/**
 * The pictures the scheduled posts carry: the daily digest the 7-day spend chart, the runway
 * alert the balance chart. A chart that cannot be drawn never holds the post back: the text goes
 * alone, and the log says why.
 */
const DIGEST_CHART_DAYS = 7;

async function withPicture(
  deps: Pick<CoreDeps, "logger">,
  reply: Reply,
  what: string,
  draw: () => Promise<Awaited<ReturnType<typeof spendChartImage>>>,
): Promise<Reply> {
  try {
    const picture = await draw();
    return picture ? { ...reply, blocks: [...reply.blocks, image(picture)] } : reply;
  } catch (error) {
    deps.logger.warn({ err: error, chart: what }, "chart could not be drawn; posting the text alone");
    return reply;
  }
}

/** The digest of `day` with the spend chart of the 7 days ending that day (none when nothing was spent). */
export function withSpendChart(deps: CoreDeps, reply: Reply, day: string): Promise<Reply> {
  return withPicture(deps, reply, "spend", async () =>
    spendChartImage(await ledgerOfDays(deps, day, DIGEST_CHART_DAYS), await energyFeeSun(deps)),
  );
}

/** The runway alert with the balance chart (the readings just kept, the rate, the levels). */
export function withBalanceChart(deps: CoreDeps, reply: Reply, levels: BalanceLevels): Promise<Reply> {
  return withPicture(deps, reply, "balance", async () =>
    balanceChartImage(await balanceReadings(deps), await spendRatePerHour(deps), levels, deps.now()),
  );
}
