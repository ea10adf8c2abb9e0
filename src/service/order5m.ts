import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createOrder5mApi(_transport: Transport) {
  return {};
}
