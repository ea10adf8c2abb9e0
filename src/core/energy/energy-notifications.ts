import {
  type ActivationConfirmed,
  activationConfirmedSchema,
  type BandwidthDelegated,
  bandwidthDelegatedSchema,
  type DelegationConfirmed,
  delegationConfirmedSchema,
} from "../../service/webhook-events.js";
import { deliveryKey, type NotificationDefinition } from "../notices/definition.js";
import { expectationKeys } from "../notices/expectations.js";
import { findOrigin } from "../origins.js";
import { deliveryConfirmed } from "./delivery-watch.js";
import {
  renderActivationConfirmed,
  renderBandwidthDelegated,
  renderDelegationConfirmed,
} from "./energy-notices-render.js";

/** The order webhooks of energy, bandwidth and activation orders: back to the conversation that ordered. */
const BANDWIDTH_NOUN = ["bandwidth order fulfilled", "bandwidth orders fulfilled"] as const;

export const delegationConfirmed: NotificationDefinition<DelegationConfirmed> = {
  event: "delegation.confirmed",
  source: "orders",
  schema: delegationConfirmedSchema,
  key: deliveryKey("orders"),
  origin: (deps, n) => findOrigin(deps.store, "order", n.order_id),
  expects: (n) => expectationKeys(["address", n.receive_address]),
  // The delivery watch must see the confirmation whatever happens to the post.
  onReceipt: (deps, n) => deliveryConfirmed(deps, n.order_id),
  render: renderDelegationConfirmed,
  digestNouns: { "Energy delivered": ["delivery confirmed", "deliveries confirmed"] },
};

export const bandwidthDelegated: NotificationDefinition<BandwidthDelegated> = {
  event: "bandwidth.delegated",
  source: "orders",
  schema: bandwidthDelegatedSchema,
  key: deliveryKey("orders"),
  origin: (deps, n) => findOrigin(deps.store, "order", n.order_id),
  expects: (n) => expectationKeys(["address", n.receive_address]),
  render: renderBandwidthDelegated,
  digestNouns: {
    "Bandwidth delivered": BANDWIDTH_NOUN,
    "Bandwidth covered with TRX": BANDWIDTH_NOUN,
    "Bandwidth not needed": BANDWIDTH_NOUN,
    "Bandwidth order fulfilled": BANDWIDTH_NOUN,
  },
};

export const activationConfirmed: NotificationDefinition<ActivationConfirmed> = {
  event: "activation.confirmed",
  source: "orders",
  schema: activationConfirmedSchema,
  key: deliveryKey("orders"),
  async origin(deps, n) {
    const own = await findOrigin(deps.store, "order", n.order_id);
    // `source` is the energy order that needed the activation (or a service tag, found nowhere).
    return own ?? (n.source ? findOrigin(deps.store, "order", n.source) : null);
  },
  expects: (n) => expectationKeys(["address", n.address], ["request", n.source]),
  render: renderActivationConfirmed,
  digestNouns: { "Address activated": ["address activated", "addresses activated"] },
};
