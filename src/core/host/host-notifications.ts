import {
  type HostCycle,
  type HostPaused,
  hostCycleSchema,
  hostPausedSchema,
} from "../../service/webhook-events.js";
import { noteHostCycle } from "../digest/facts.js";
import { markHostStopped } from "../home.js";
import type { NotificationDefinition } from "../notifications/definition.js";
import { expectationKeys } from "../notifications/expectations.js";
import { findOrigin } from "../origins.js";
import { renderHostCycle, renderHostPaused } from "./host-notices-render.js";

/** Host Mode callbacks: to the conversation that started Host Mode for the address. */
export const hostCycle: NotificationDefinition<HostCycle> = {
  event: "host.cycle",
  source: "host",
  // A cycle's query has no `event`.
  wireEvent: null,
  schema: hostCycleSchema,
  // Unique per delegation.
  key: (n) => `host:${n.order_id}`,
  origin: (deps, n) => findOrigin(deps.store, "host", n.address),
  expects: (n) => expectationKeys(["host", n.address]),
  onReceipt: (deps, n) => noteHostCycle(deps, n),
  render: renderHostCycle,
  digestNouns: { "Host Mode delegation": ["Host Mode delegation", "Host Mode delegations"] },
};

export const hostPaused: NotificationDefinition<HostPaused> = {
  event: "host_paused",
  source: "host",
  schema: hostPausedSchema,
  // A pause has no id: its address and time (the callback is retried as is).
  key: (n) => `host-paused:${n.address}:${n.timestamp}`,
  origin: (deps, n) => findOrigin(deps.store, "host", n.address),
  expects: (n) => expectationKeys(["host", n.address]),
  onReceipt: (deps, n) => markHostStopped(deps, n.address),
  render: (n) => renderHostPaused(n),
  digestNouns: { "Host Mode paused": ["Host Mode pause", "Host Mode pauses"] },
};
