import { defineFeature, type ScheduledJob } from "../feature.js";
import { digestCommand } from "./digest-command.js";
import { msUntilDigest, postDailyDigest } from "./schedule.js";

/** A failed digest is tried again after this long. */
const RETRY_MS = 60_000;

export const digestFeature = defineFeature({
  name: "digest",
  commands: [digestCommand],
  /** The daily digest at OPS_DIGEST_AT (when set), to the alert destination. */
  scheduled: ({ deps, alerts }): ScheduledJob[] => {
    const atMin = deps.settings.digestAtMin;
    if (atMin === undefined) return [];
    return [
      {
        kind: "ticker",
        name: "digest",
        firstDelayMs: msUntilDigest(deps.now(), atMin),
        retryMs: RETRY_MS,
        run: async () => {
          await postDailyDigest(deps, { atMin, alerts });
          return msUntilDigest(deps.now(), atMin);
        },
      },
    ];
  },
});
