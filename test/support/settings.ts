import { loadConfig } from "../../src/config/load-config.js";
import type { CoreSettings } from "../../src/core/deps.js";
import { ALERT_VARIABLES } from "../../src/wiring/platforms.js";

/** The groups of the core's settings a test may set in part: the rest of the group keeps its defaults. */
type Group = "runway" | "watch" | "alerts" | "cases";

/** What a test sets of the core's settings: any field, and any fields of a group. */
export type SettingsOverrides = Partial<Omit<CoreSettings, Group>> & {
  [G in Group]?: Partial<CoreSettings[G]>;
};

const fromEnvironment = loadConfig({}).core;

/**
 * A bare core's settings: every environment default as declared (src/config/variables.ts, read
 * through `loadConfig` as the app reads it), and fixed test values for what the wiring adds.
 */
export const baseSettings: CoreSettings = {
  ...fromEnvironment,
  cases: { ...fromEnvironment.cases, certKeyHex: "", destinations: [] },
  hostCallbackToken: "test-callback-token",
  admins: ["telegram:4242"],
  operators: ["slack:U0OPER"],
  explorerTxUrl: "https://tronscan.org/#/transaction/",
  // OPS_ACTIVATION_TRX=0: hold nothing for an address's activation (unset, a capped quote to an
  // address not known active is refused: test/core/energy/activation-caps.test.ts).
  activationTrx: "0",
  alertVariables: ALERT_VARIABLES,
};

/** `base` with `overrides`, each group merged field by field. */
export function withSettings(base: CoreSettings, overrides: SettingsOverrides = {}): CoreSettings {
  return {
    ...base,
    ...overrides,
    runway: { ...base.runway, ...overrides.runway },
    watch: { ...base.watch, ...overrides.watch },
    alerts: { ...base.alerts, ...overrides.alerts },
    cases: { ...base.cases, ...overrides.cases },
  };
}
