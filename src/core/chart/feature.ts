import { defineFeature } from "../feature.js";
import { chartCommand } from "./chart-command.js";

export const chartFeature = defineFeature({ name: "chart", commands: [chartCommand] });
