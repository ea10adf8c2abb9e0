import { defineFeature } from "../feature.js";
import { reportReady } from "./report-notifications.js";
import { statementCommand } from "./statement-command.js";
import { statementForm } from "./statement-form.js";
import { createStatementPoller } from "./statement-tracking.js";

export const statementFeature = defineFeature({
  name: "statement",
  forms: [statementForm],
  commands: [statementCommand],
  tracked: { "poll-statement": ({ deps }) => createStatementPoller(deps) },
  notifications: { "report.ready": reportReady },
});
