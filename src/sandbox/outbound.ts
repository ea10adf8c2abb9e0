import type { Clock } from "../clock.js";
import type { Outbound, Timers } from "./context.js";

// STUB: replaced by the signed-webhook and Host Mode callback sender.
export type OutboundOptions = {};

export function createOutbound(_deps: { now: Clock; timers: Timers } & OutboundOptions): Outbound {
  return { orderEvent() {}, reportEvent() {}, hostCallback() {}, idle: async () => {}, history: () => [] };
}
