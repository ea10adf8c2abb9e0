import { defineFeature } from "../feature.js";
import type { OnBlocked } from "./on-blocked.js";
import { scheduledRescreen } from "./rescreen-spend.js";
import { watchTick } from "./tick.js";
import { watchCommand } from "./watch-command.js";

/**
 * The watch feature, told what other features do when a watched address becomes blocked (the
 * list in src/core/features.ts: the watch imports no feature that spends, they import it).
 */
export const watchFeatureWith = (onBlocked: readonly OnBlocked[]) =>
  defineFeature({
    name: "watch",
    commands: [watchCommand],
    spends: [scheduledRescreen],
    /** One watchlist poll across every instance, every OPS_WATCH_INTERVAL_S. */
    scheduled: ({ deps, alerts }) => [
      {
        kind: "every",
        name: "watch",
        everyMs: deps.settings.watch.intervalMs,
        run: () =>
          watchTick(deps, alerts, onBlocked).catch((error: unknown) => {
            deps.logger.warn({ err: error }, "watch: tick failed");
          }),
      },
    ],
  });
