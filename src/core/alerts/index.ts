export * from "./alert.js";
export { alertHomeBlocks } from "./home.js";

export { clearAlertOf, raiseAlert } from "./raise.js";
