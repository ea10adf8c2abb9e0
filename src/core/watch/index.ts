/** Watchlists: the feature's public surface (registry, wiring, and the spend flows' hooks). */

export { autoWatch, autoWatchMany } from "./hooks.js";
export type { BlockedChange, GuardOutcome, OnBlocked } from "./on-blocked.js";
export { watchCommand } from "./watch-command.js";
