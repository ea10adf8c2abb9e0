import type { Transport } from "./transport.js";

// STUB: replaced by the real module.
export function createWebhookRegistriesApi(_transport: Transport) {
  return {};
}
