import type { SandboxContext } from "../context.js";
import type { Route } from "../router.js";

// STUB: replaced by the screening family implementation.
export type ScreeningFamilyOptions = {};

export function createScreeningFamily(_ctx: SandboxContext, _options: ScreeningFamilyOptions = {}) {
  const routes: Route[] = [];
  return { routes, control: {} };
}
