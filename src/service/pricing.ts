import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createPricingApi(_transport: Transport) {
  return {};
}
