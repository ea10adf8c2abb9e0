import { defineFeature } from "../feature.js";
import { screenCommand, screenNetworkAction } from "./screen-command.js";
import { paidScreening } from "./screening-spend.js";
import { createPollScreeningHandler } from "./screening-tracking.js";

export const screeningFeature = defineFeature({
  name: "screening",
  commands: [screenCommand],
  actions: [screenNetworkAction],
  spends: [paidScreening],
  tracked: { "poll-screening": ({ deps }) => createPollScreeningHandler(deps) },
});
