import type { SandboxContext } from "../context.js";
import type { Route } from "../router.js";

// STUB: replaced by the account family implementation.
export type AccountFamilyOptions = {};

export function createAccountFamily(_ctx: SandboxContext, _options: AccountFamilyOptions = {}) {
  const routes: Route[] = [];
  return { routes, control: {} };
}
