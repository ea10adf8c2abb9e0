/** The alert settings (CONTRACT.md: OPS_ESCALATE_MIN, OPS_ONCALL). */
export interface AlertSettings {
  /** OPS_ESCALATE_MIN in ms; unset: no escalation. */
  escalateMs?: number;
  /** OPS_ONCALL: `slack:U…`, `slack:S…` (a user group), `telegram:@username`. */
  oncall: readonly string[];
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = { oncall: [] };

export const alertSettingsOf = (settings: { alerts?: AlertSettings }): AlertSettings =>
  settings.alerts ?? DEFAULT_ALERT_SETTINGS;

/** How long a snooze hides an alert. */
export const SNOOZE_MS = 3_600_000;
/**
 * Alert buttons are read much later than a quote's: they last as long as the alert is kept. Each
 * message's buttons are one group (claimed once); every change of the alert renders new ones.
 */
export const ALERT_BUTTON_TTL_MS = 30 * 24 * 3_600_000;
