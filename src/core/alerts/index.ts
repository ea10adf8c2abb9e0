export * from "./alert.js";
export { alertDigestBlocks, alertPosted } from "./posted.js";
export { clearAlert, clearAlertOf, raiseAlert, type AlertPost, type RaiseAlertInput } from "./raise.js";
export { type AlertSettings, alertSettingsOf } from "./settings.js";
export { postCopies, type SubscriptionKind } from "./subscriptions.js";
