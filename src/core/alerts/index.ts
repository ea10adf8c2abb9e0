export * from "./alert.js";
export { alertDigestBlocks, alertPosted } from "./posted.js";
export { type AlertPost, clearAlert, clearAlertOf, type RaiseAlertInput, raiseAlert } from "./raise.js";
export { type AlertSettings, alertSettingsOf } from "./settings.js";
export { postCopies, type SubscriptionKind } from "./subscriptions.js";
