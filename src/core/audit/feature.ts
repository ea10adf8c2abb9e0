import { defineFeature } from "../feature.js";
import { auditCommand } from "./audit-command.js";

export const auditFeature = defineFeature({ name: "audit", commands: [auditCommand] });
