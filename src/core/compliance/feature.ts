import { defineFeature } from "../feature.js";
import { complianceCommand } from "./compliance-command.js";

export const complianceFeature = defineFeature({ name: "compliance", commands: [complianceCommand] });
