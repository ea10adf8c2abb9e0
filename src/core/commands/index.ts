import { cancelActionHandler } from "../actions.js";
import { approveAction, rejectAction } from "../approvals/decide.js";
import type { ActionHandler, CommandDefinition } from "../command.js";
import { digestCommand } from "../digest/command.js";
import { pasteEnergyAction, pasteScreenAction } from "../paste-check/paste-check.js";
import { energyConfirmAction } from "../spend/confirm-energy.js";
import { hostConfirmAction } from "../spend/confirm-host.js";
import { hostStopAction, watchCommand } from "../watch/index.js";
import { auditCommand } from "./audit.js";
import { balanceCommand } from "./balance.js";
import { complianceCommand } from "./compliance.js";
import { energyCommand } from "./energy.js";
import { helpCommand } from "./help.js";
import { hostCommand } from "./host.js";
import { pricesCommand } from "./prices.js";
import { screenCommand, screenNetworkAction } from "./screen.js";
import { setupCommand } from "./setup.js";
import { statementCommand } from "./statement.js";

/** Every verb of the chat grammar, in the order help lists them. Add a verb: one file, one line here. */
export const commands: CommandDefinition[] = [
  helpCommand,
  screenCommand,
  complianceCommand,
  energyCommand,
  hostCommand,
  pricesCommand,
  balanceCommand,
  statementCommand,
  digestCommand,
  watchCommand,
  auditCommand,
  setupCommand,
];

/** Every button kind the core can run. */
export const actionHandlers: ActionHandler[] = [
  cancelActionHandler,
  screenNetworkAction,
  energyConfirmAction,
  hostConfirmAction,
  approveAction,
  rejectAction,
  hostStopAction,
  pasteScreenAction,
  pasteEnergyAction,
];
