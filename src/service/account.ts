import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createAccountApi(_transport: Transport) {
  return {};
}
