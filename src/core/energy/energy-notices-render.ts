import type {
  ActivationConfirmed,
  BandwidthDelegated,
  DelegationConfirmed,
} from "../../service/webhook-events.js";
import { clip } from "../format.js";
import { addressSpan, type Item, shortOf, txSpans, when, withOptional } from "../notices/notice-parts.js";
import { formatCount } from "../parse/echo.js";
import { code, context, fields, header, publicReply, type Reply, text } from "../reply.js";

/**
 * What the service says later about an energy, bandwidth or activation order, as a notice: the
 * order id, the address and every transaction hash linked to the explorer.
 */
const RENTALS: Record<string, string> = { "5m": "5 minutes", "1h": "1 hour" };

function hashesOf(event: { tx_hashes: string[]; tx_hash?: string | undefined }): string[] {
  if (event.tx_hashes.length > 0) return event.tx_hashes;
  return event.tx_hash ? [event.tx_hash] : [];
}

export function renderDelegationConfirmed(event: DelegationConfirmed, explorerTxUrl: string): Reply {
  const energy = event.energy_amount === undefined ? undefined : formatCount(event.energy_amount);
  const rental = event.order_type ? (RENTALS[event.order_type] ?? clip(event.order_type, 20)) : undefined;
  const items = withOptional(
    [
      ["Order", code(clip(event.order_id))],
      ["Address", addressSpan(event.receive_address)],
    ],
    [
      ["Energy", energy],
      ["Rental", rental],
      ["Confirmed", when(event.confirmed_at)],
    ],
  );
  items.push(["Transactions", txSpans(explorerTxUrl, hashesOf(event))]);
  const what = energy ? `${energy} energy` : "energy";
  return publicReply(
    `Energy delivered: ${what} to ${shortOf(event.receive_address)} (order ${clip(event.order_id, 40)})`,
    [header("Energy delivered"), fields(...items), context("Delegation confirmed on-chain by the service.")],
  );
}

const FULFILLMENT: Record<string, { title: string; line: (address: string, what: string) => string }> = {
  delegated: {
    title: "Bandwidth delivered",
    line: (address, what) => `${what} delegated to ${address}.`,
  },
  trx_send: {
    title: "Bandwidth covered with TRX",
    line: (address, what) => `The service sent TRX to ${address} instead of delegating ${what}.`,
  },
  already_enough: {
    title: "Bandwidth not needed",
    line: (address) =>
      `${address} already had enough free bandwidth: the order closed successfully without a transaction.`,
  },
};

export function renderBandwidthDelegated(event: BandwidthDelegated, explorerTxUrl: string): Reply {
  const amount = event.bandwidth_amount === undefined ? undefined : formatCount(event.bandwidth_amount);
  const what = amount ? `${amount} bandwidth` : "bandwidth";
  const fulfillment = event.fulfillment ? clip(event.fulfillment, 40) : "unknown";
  const known = FULFILLMENT[fulfillment] ?? {
    title: "Bandwidth order fulfilled",
    line: (address: string) => `Bandwidth order for ${address} fulfilled (${fulfillment}).`,
  };
  const rental =
    event.rental_label !== undefined
      ? clip(event.rental_label, 40)
      : event.rental_seconds !== undefined
        ? `${formatCount(event.rental_seconds)} s`
        : undefined;
  const items = withOptional(
    [
      ["Order", code(clip(event.order_id))],
      ["Address", addressSpan(event.receive_address)],
    ],
    [
      ["Bandwidth", amount],
      ["Rental", rental],
      ["Fulfillment", fulfillment],
      ["Confirmed", when(event.confirmed_at)],
    ],
  );
  items.push(["Transactions", txSpans(explorerTxUrl, event.tx_hashes)]);
  const line = known.line(shortOf(event.receive_address), what);
  return publicReply(`${known.title}: ${line.replace(/\.$/, "")} (order ${clip(event.order_id, 40)})`, [
    header(known.title),
    text(line),
    fields(...items),
  ]);
}

const ACTIVATION_TYPES: Record<string, string> = {
  ACC_CREATE: "account creation (ACC_CREATE)",
  DIRECT: "direct (DIRECT)",
};

export function renderActivationConfirmed(event: ActivationConfirmed, explorerTxUrl: string): Reply {
  const type = event.activation_type
    ? (ACTIVATION_TYPES[event.activation_type] ?? clip(event.activation_type, 40))
    : undefined;
  const items: Item[] = [
    ["Activation order", code(clip(event.order_id))],
    ["Address", addressSpan(event.address)],
  ];
  if (type) items.push(["Type", type]);
  if (event.source) items.push(["For", code(clip(event.source))]);
  const confirmed = when(event.confirmed_at);
  if (confirmed) items.push(["Confirmed", confirmed]);
  items.push(["Transactions", txSpans(explorerTxUrl, event.tx_hashes)]);
  const forOrder = event.source ? ` for ${clip(event.source, 40)}` : "";
  return publicReply(`Address activated: ${shortOf(event.address)}${forOrder}`, [
    header("Address activated"),
    fields(...items),
    context("The address now exists on-chain; the activation cost was charged once."),
  ]);
}
