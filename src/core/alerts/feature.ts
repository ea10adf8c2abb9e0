import { defineFeature } from "../feature.js";
import { alertActions } from "./buttons.js";
import { alertsCommand, subscribeCommand, subscriptionsCommand, unsubscribeCommand } from "./commands.js";
import { escalateHandler, unsnoozeHandler } from "./timers.js";

export const alertsFeature = defineFeature({
  name: "alerts",
  commands: [alertsCommand, subscribeCommand, unsubscribeCommand, subscriptionsCommand],
  actions: alertActions,
  tracked: { "alert-escalate": escalateHandler, "alert-unsnooze": unsnoozeHandler },
});
