/** The front door of `compliance/`: what other folders may use. Anything else here is internal. */
export { complianceCommand } from "./compliance-command.js";
