import { defineFeature } from "../feature.js";
import { digestCommand } from "./command.js";

export const digestFeature = defineFeature({ name: "digest", commands: [digestCommand] });
