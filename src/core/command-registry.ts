import type { ActionHandler, CommandDefinition } from "./command.js";
import { features } from "./features.js";

/** Every verb of the chat grammar, in the order help lists them (the order of `features`). */
export const commands: CommandDefinition[] = features.flatMap((feature) => feature.commands ?? []);

/** Every button kind the core can run. */
export const actionHandlers: ActionHandler[] = features.flatMap((feature) => feature.actions ?? []);
