import { defineFeature } from "../feature.js";
import { watchCommand } from "./command.js";
import { hostStopAction } from "./host-guard.js";

export const watchFeature = defineFeature({
  name: "watch",
  commands: [watchCommand],
  actions: [hostStopAction],
});
