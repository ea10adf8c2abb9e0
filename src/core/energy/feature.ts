import { defineFeature } from "../feature.js";
import { createWatchDeliveryHandler } from "./delivery-watch.js";
import { energyCommand } from "./energy-command.js";
import { energyForm } from "./energy-form.js";
import { activationConfirmed, bandwidthDelegated, delegationConfirmed } from "./energy-notifications.js";
import { energyOrder } from "./energy-spend.js";
import { createPollOrchestratorHandler } from "./orchestrator-tracking.js";
import { createReconcileOrder5mHandler } from "./reconcile-order5m.js";

export const energyFeature = defineFeature({
  name: "energy",
  forms: [energyForm],
  commands: [energyCommand],
  spends: [energyOrder],
  tracked: {
    "reconcile-order5m": ({ deps }) => createReconcileOrder5mHandler(deps),
    "poll-orchestrator": ({ deps }) => createPollOrchestratorHandler(deps),
    "watch-delivery": ({ deps }) => createWatchDeliveryHandler(deps),
  },
  notifications: {
    "delegation.confirmed": delegationConfirmed,
    "bandwidth.delegated": bandwidthDelegated,
    "activation.confirmed": activationConfirmed,
  },
});
