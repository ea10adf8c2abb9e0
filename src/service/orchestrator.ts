import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createOrchestratorApi(_transport: Transport) {
  return {};
}
