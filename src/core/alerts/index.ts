export * from "./alert.js";
export { listAlerts } from "./commands.js";
export { alertHomeBlocks } from "./home.js";

export { clearAlertOf, raiseAlert } from "./raise.js";
