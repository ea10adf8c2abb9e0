/** Watchlists: the feature's public surface (registry, wiring, and the spend flows' hooks). */

export { watchSettingsOf } from "./settings.js";
export { watchTick } from "./tick.js";
