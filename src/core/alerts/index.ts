export * from "./alert.js";
export { listAlerts } from "./commands.js";
export { alertHomeBlocks } from "./home.js";
export { alertDigestBlocks, alertPosted } from "./posted.js";

export { clearAlertOf, raiseAlert } from "./raise.js";
export { whenOf } from "./render.js";
export { mentionsFor } from "./timers.js";
