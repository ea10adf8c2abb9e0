import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createHostModeApi(_transport: Transport) {
  return {};
}
