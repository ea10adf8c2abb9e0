import type { CoreSettings } from "./deps.js";

/**
 * What an operator sets so that notices with no known conversation have somewhere to go: the
 * registered platforms' alert variables (`CoreSettings.alertVariables`), `set A, B or C`.
 */
export function alertDestinationHint(settings: Pick<CoreSettings, "alertVariables">): string {
  const names = settings.alertVariables ?? [];
  if (names.length === 0) return "set an alert destination";
  const last = names[names.length - 1];
  return names.length === 1 ? `set ${last}` : `set ${names.slice(0, -1).join(", ")} or ${last}`;
}
