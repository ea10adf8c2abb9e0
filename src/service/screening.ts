import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createScreeningApi(_transport: Transport) {
  return {};
}
