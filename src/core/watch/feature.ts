import { defineFeature } from "../feature.js";
import { hostStopAction } from "./host-guard.js";
import { watchSettingsOf } from "./settings.js";
import { watchTick } from "./tick.js";
import { watchCommand } from "./watch-command.js";

export const watchFeature = defineFeature({
  name: "watch",
  commands: [watchCommand],
  actions: [hostStopAction],
  /** One watchlist poll across every instance, every OPS_WATCH_INTERVAL_S. */
  scheduled: ({ deps, alerts }) => [
    {
      kind: "every",
      name: "watch",
      everyMs: watchSettingsOf(deps.settings).intervalMs,
      run: () =>
        watchTick(deps, alerts).catch((error: unknown) => {
          deps.logger.warn({ err: error }, "watch: tick failed");
        }),
    },
  ],
});
