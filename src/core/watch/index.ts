/** Watchlists: the feature's public surface (registry, wiring, and the spend flows' hooks). */

export { autoWatch, autoWatchMany } from "./hooks.js";
export { watchCommand } from "./watch-command.js";
