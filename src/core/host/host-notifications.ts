import {
  type HostCycle,
  type HostPaused,
  hostCycleSchema,
  hostPausedSchema,
} from "../../service/webhook-events.js";
import type { NotificationDefinition } from "../notices/definition.js";
import { expectationKeys } from "../notices/expectations.js";
import { findOrigin } from "../origins.js";
import { markHostStopped } from "./active.js";
import { countHostCycle } from "./host-cycles.js";
import { recordHostEvent } from "./host-events.js";
import { noteHostRunCycle } from "./host-ledger.js";
import { renderHostCycle, renderHostPaused } from "./host-notices-render.js";
import { alertHostOverCap } from "./over-cap.js";

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
  onReceipt: async (deps, n) => {
    // One ledger entry at what the cycle charged, counted toward the daily cap of whoever started Host Mode.
    await countHostCycle(deps, n);
    // Cycles past the starter's daily cap: one alert a day with Stop Host Mode (over-cap.ts).
    await alertHostOverCap(deps, n);
    // `host status`: cycles seen and TRX charged since the start.
    await noteHostRunCycle(deps, n);
  },
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
  onReceipt: async (deps, n) => {
    await markHostStopped(deps, n.address);
    // A start whose answer was lost is not asked again over a pause (src/core/host/reconcile-host-start.ts).
    await recordHostEvent(deps.store, n.address, {
      event: "paused",
      at: deps.now(),
      ...(n.reason === undefined ? {} : { reason: n.reason }),
    });
  },
  render: (n) => renderHostPaused(n),
  digestNouns: { "Host Mode paused": ["Host Mode pause", "Host Mode pauses"] },
};
