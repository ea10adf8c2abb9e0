import { cancelActionHandler } from "../actions.js";
import type { ActionHandler, CommandDefinition } from "../command.js";
import { auditCommand } from "./audit.js";
import { helpCommand } from "./help.js";

/** Every verb of the chat grammar, in the order help lists them. Add a verb: one file, one line here. */
export const commands: CommandDefinition[] = [helpCommand, auditCommand];

/** Every button kind the core can run. */
export const actionHandlers: ActionHandler[] = [cancelActionHandler];
