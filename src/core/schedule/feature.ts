import { defineFeature, type ScheduledJob } from "../feature.js";
import { scheduleConfirmAction } from "./confirm-schedule.js";
import { ENSURE_EVERY_MS, ensureStandingOrders } from "./ensure.js";
import { createScheduleRunHandler } from "./occurrences.js";
import { scheduleRunAction } from "./run-action.js";
import { scheduleCommand } from "./schedule-command.js";

/**
 * Standing orders (`schedule …`) and the cheapest period's one-off order
 * (`energy <address> <amount> cheapest`, whose command lives with `energy`).
 */
export const scheduleFeature = defineFeature({
  name: "schedule",
  commands: [scheduleCommand],
  actions: [scheduleConfirmAction, scheduleRunAction],
  tracked: {
    "schedule-run": ({ deps }) => createScheduleRunHandler(deps),
  },
  // Each run plans the next; this mends a chain a lost job broke (every active order has its next run planned).
  scheduled: ({ deps }): ScheduledJob[] => [
    {
      kind: "ticker",
      name: "standing-orders",
      firstDelayMs: 0,
      retryMs: 60_000,
      run: async () => {
        await ensureStandingOrders(deps);
        return ENSURE_EVERY_MS;
      },
    },
  ],
});
