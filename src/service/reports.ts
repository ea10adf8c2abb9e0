import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createReportsApi(_transport: Transport) {
  return {};
}
