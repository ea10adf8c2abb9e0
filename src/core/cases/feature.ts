import { defineFeature } from "../feature.js";
import { verifyCommand } from "../verification/verify-command.js";
import { caseActions, reasonForm } from "./case-buttons.js";
import { caseCommand, casesCommand } from "./case-commands.js";
import { caseSlaHandler } from "./case-sla.js";
import { certificateCommand } from "./certificate-command.js";

export const casesFeature = defineFeature({
  name: "cases",
  commands: [casesCommand, caseCommand, certificateCommand, verifyCommand],
  actions: caseActions,
  tracked: { "case-sla": caseSlaHandler },
  forms: [reasonForm],
});
