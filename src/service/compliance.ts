import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createComplianceApi(_transport: Transport) {
  return {};
}
