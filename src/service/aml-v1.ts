import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createAmlV1Api(_transport: Transport) {
  return {};
}
