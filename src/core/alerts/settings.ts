/** How long a snooze hides an alert. */
export const SNOOZE_MS = 3_600_000;
/**
 * Alert buttons are read much later than a quote's: they last as long as the alert is kept. Each
 * message's buttons are one group (claimed once); every change of the alert renders new ones.
 */
export const ALERT_BUTTON_TTL_MS = 30 * 24 * 3_600_000;
