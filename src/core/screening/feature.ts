import { defineFeature } from "../feature.js";
import { screenCommand, screenNetworkAction } from "./screen-command.js";
import { createPollScreeningHandler } from "./screening-tracking.js";

export const screeningFeature = defineFeature({
  name: "screening",
  commands: [screenCommand],
  actions: [screenNetworkAction],
  tracked: { "poll-screening": ({ deps }) => createPollScreeningHandler(deps) },
});
