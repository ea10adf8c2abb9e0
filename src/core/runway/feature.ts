import { defineFeature, type ScheduledJob } from "../feature.js";
import { checkRunway, runwayEnabled } from "./check.js";

/** A failed check is tried again after at most this long. */
const RETRY_MS = 60_000;

/** Balance runway alerts: a check every OPS_RUNWAY_INTERVAL_MIN when a level is set. */
export const runwayFeature = defineFeature({
  name: "runway",
  scheduled: ({ deps, alerts }): ScheduledJob[] => {
    const runway = deps.settings.runway;
    if (!runwayEnabled(runway)) return [];
    const { intervalMs } = runway;
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
