import type { SandboxContext } from "../context.js";
import type { Route } from "../router.js";

// STUB: replaced by the energy family implementation.
export type EnergyFamilyOptions = {};

export function createEnergyFamily(_ctx: SandboxContext, _options: EnergyFamilyOptions = {}) {
  const routes: Route[] = [];
  return { routes, control: {} };
}
