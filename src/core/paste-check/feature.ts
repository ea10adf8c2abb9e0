import { defineFeature } from "../feature.js";
import { pasteEnergyAction, pasteScreenAction, pasteWatchAction } from "./paste-check.js";

export const pasteCheckFeature = defineFeature({
  name: "paste-check",
  actions: [pasteScreenAction, pasteEnergyAction, pasteWatchAction],
});
