import { defineFeature } from "../feature.js";
import { setupCommand } from "./setup-command.js";

export const setupFeature = defineFeature({ name: "setup", commands: [setupCommand] });
