import { defineFeature } from "../feature.js";
import { hostCommand } from "./host-command.js";
import { hostCycleCharge } from "./host-cycles.js";
import { hostStopAction } from "./host-guard.js";
import { hostCycle, hostPaused } from "./host-notifications.js";
import { hostStart } from "./host-spend.js";
import { hostStatusAction } from "./host-status-action.js";
import { hostOverCapStopAction } from "./over-cap.js";
import { createReconcileHostStartHandler } from "./reconcile-host-start.js";

export const hostFeature = defineFeature({
  name: "host",
  commands: [hostCommand],
  spends: [hostStart, hostCycleCharge],
  actions: [hostStatusAction, hostOverCapStopAction, hostStopAction],
  tracked: { "reconcile-host-start": ({ deps }) => createReconcileHostStartHandler(deps) },
  notifications: { "host.cycle": hostCycle, host_paused: hostPaused },
});
