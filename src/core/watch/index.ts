/** Watchlists: the feature's public surface (registry, wiring, and the spend flows' hooks). */
export { watchCommand } from "./command.js";
export { autoWatch, watchDenyLine } from "./hooks.js";
export { HOST_STOP_KIND, hostStopAction } from "./host-guard.js";
export { DEFAULT_WATCH_SETTINGS, type WatchSettings, watchSettingsOf } from "./settings.js";
export { watchTick } from "./tick.js";
