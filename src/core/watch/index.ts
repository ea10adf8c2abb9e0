/** Watchlists: the feature's public surface (registry, wiring, and the spend flows' hooks). */

export { watchCommand } from "./command.js";
export { autoWatch } from "./hooks.js";
