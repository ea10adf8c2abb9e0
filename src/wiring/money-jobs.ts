import type { Config } from "../config.js";
import type { CoreDeps } from "../core/deps.js";
import { msUntilDigest, postDailyDigest } from "../core/digest/schedule.js";
import type { ConversationRef } from "../core/invocation.js";
import { checkRunway, runwayEnabled } from "../core/runway/index.js";
import type { JobQueue } from "../jobs/queue.js";
import { startTickers, type Ticker } from "../jobs/ticker.js";
import type { Shutdown } from "./shutdown.js";

/**
 * The scheduled money jobs: the balance runway check every OPS_RUNWAY_INTERVAL_MIN (when a level
 * is set) and the daily digest at OPS_DIGEST_AT (when set), both posting to the alert destination.
 */
const RETRY_MS = 60_000;

function moneyTickers(config: Config, deps: CoreDeps, alerts: readonly ConversationRef[]): Ticker[] {
  const { money } = config;
  const tickers: Ticker[] = [];
  const runway = { lowBalanceTrx: money.lowBalanceTrx, alertHours: money.runwayAlertHours };
  if (runwayEnabled(runway)) {
    const intervalMs = money.runwayIntervalMin * 60_000;
    tickers.push({
      name: "runway",
      firstDelayMs: 0,
      retryMs: Math.min(RETRY_MS, intervalMs),
      run: async () => {
        await checkRunway(deps, { settings: runway, alerts });
        return intervalMs;
      },
    });
  }
  const atMin = money.digestAtMin;
  if (atMin !== undefined) {
    tickers.push({
      name: "digest",
      firstDelayMs: msUntilDigest(deps.now(), atMin),
      retryMs: RETRY_MS,
      run: async () => {
        await postDailyDigest(deps, { atMin, alerts });
        return msUntilDigest(deps.now(), atMin);
      },
    });
  }
  return tickers;
}

export async function startMoneyJobs(options: {
  config: Config;
  deps: CoreDeps;
  queues: JobQueue;
  alerts: readonly ConversationRef[];
  shutdown: Shutdown;
}): Promise<void> {
  const tickers = moneyTickers(options.config, options.deps, options.alerts);
  if (tickers.length === 0) return;
  const worker = await startTickers(options.queues, tickers, { logger: options.deps.logger });
  options.shutdown.add("workers", "scheduled money jobs", () => worker.close());
}
