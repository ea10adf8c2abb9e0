import { balanceCommand } from "./account/balance-command.js";
import { pricesCommand } from "./account/prices-command.js";
import { cancelActionHandler } from "./actions.js";
import { approveAction, rejectAction } from "./approvals/decide.js";
import { auditCommand } from "./audit/audit-command.js";
import type { ActionHandler, CommandDefinition } from "./command.js";
import { complianceCommand } from "./compliance/compliance-command.js";
import { digestCommand } from "./digest/command.js";
import { energyConfirmAction } from "./energy/confirm-energy.js";
import { energyCommand } from "./energy/energy-command.js";
import { helpCommand } from "./help.js";
import { hostConfirmAction } from "./host/confirm-host.js";
import { hostCommand } from "./host/host-command.js";
import { pasteEnergyAction, pasteScreenAction, pasteWatchAction } from "./paste-check/paste-check.js";
import { screenCommand, screenNetworkAction } from "./screening/screen-command.js";
import { setupCommand } from "./setup/setup-command.js";
import { statementCommand } from "./statement/statement-command.js";
import { hostStopAction, watchCommand } from "./watch/index.js";

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
  pasteWatchAction,
];
