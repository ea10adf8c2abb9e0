import { defineFeature } from "../feature.js";
import { scheduleConfirmAction } from "./confirm-schedule.js";
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
});
