/** The front door of `service-events/`: what the rest of the bot uses (through `src/core/index.ts`). */
export type { NotificationSource, WebhookFamily } from "./events.js";
export { notificationKey, parseHostCallback, parseNotification, parseServiceEvent } from "./events.js";
export { canDigest, digestBudget, digestCost, renderNoticeDigest } from "./notice-digest-render.js";
export type { NotificationRouter, RouteOutcome } from "./route.js";
export { createNotificationRouter } from "./route.js";
