import { defineFeature, type ScheduledJob } from "../feature.js";
import { checkRunway, runwayEnabled } from "./check.js";

/** A failed check is tried again after at most this long. */
const RETRY_MS = 60_000;

/** Balance runway alerts: a check every OPS_RUNWAY_INTERVAL_MIN when a level is set. */
export const runwayFeature = defineFeature({
  name: "runway",
  scheduled: ({ deps, alerts, money }): ScheduledJob[] => {
    const runway = { lowBalanceTrx: money.lowBalanceTrx, alertHours: money.runwayAlertHours };
    if (!runwayEnabled(runway)) return [];
    const intervalMs = money.runwayIntervalMin * 60_000;
    return [
      {
        kind: "ticker",
        name: "runway",
        firstDelayMs: 0,
        retryMs: Math.min(RETRY_MS, intervalMs),
        run: async () => {
          await checkRunway(deps, { settings: runway, alerts });
          return intervalMs;
        },
      },
    ];
  },
});
