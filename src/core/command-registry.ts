import type { ActionHandler, CommandDefinition } from "./command.js";
import { features } from "./features.js";
import { confirmable } from "./spend/definition.js";
import { confirmActionOf } from "./spend/pipeline.js";

/** Every verb of the chat grammar, in the order help lists them (the order of `features`). */
export const commands: CommandDefinition[] = features.flatMap((feature) => feature.commands ?? []);

/** Every button kind the core can run: each feature's, and the Confirm of each of its spends (the pipeline's). */
export const actionHandlers: ActionHandler[] = features.flatMap((feature) => [
  ...(feature.actions ?? []),
  ...confirmable("spends" in feature ? (feature.spends ?? []) : []).map(confirmActionOf),
]);
