import { clip, formatAmount, formatTime, shortAddress, txSpan } from "../format.js";
import { formatCount } from "../parse/echo.js";
import {
  type Block,
  code,
  context,
  fields,
  header,
  plain,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";
import type {
  ActivationConfirmed,
  BandwidthDelegated,
  DelegationConfirmed,
  HostCycle,
  HostPaused,
  Notification,
  ReportReady,
} from "./events.js";

export { txSpan };

/**
 * What the service tells the bot later (order and report webhooks, Host Mode callbacks) as
 * platform-neutral replies: the order id, the address and every transaction hash linked to the
 * explorer. Every value comes from outside: text is clipped, and a hash becomes a link only when
 * it has the shape of a TRON transaction hash.
 */
type Item = [label: string, value: Span | string | Span[]];

/** Every hash, comma separated; "none" when the service sent none. */
export function txSpans(explorerTxUrl: string, hashes: readonly string[]): Span[] {
  if (hashes.length === 0) return [plain("none")];
  return hashes.flatMap((hash, i) => (i === 0 ? [] : [plain(", ")]).concat(txSpan(explorerTxUrl, hash)));
}

const addressSpan = (address: string | undefined): Span => code(address ? clip(address, 60) : "unknown");
const shortOf = (address: string | undefined): string => (address ? shortAddress(clip(address, 60)) : "?");
const when = (iso: string | undefined): string | undefined => (iso ? formatTime(clip(iso, 40)) : undefined);
const RENTALS: Record<string, string> = { "5m": "5 minutes", "1h": "1 hour" };

function withOptional(items: Item[], optional: [string, string | undefined][]): Item[] {
  for (const [label, value] of optional) if (value !== undefined) items.push([label, value]);
  return items;
}

function hashesOf(event: { tx_hashes: string[]; tx_hash?: string }): string[] {
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

/** 1234567 → "1.2 MB": the size of a statement file. */
function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${formatCount(bytes)} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1_024;
  let unit = 0;
  while (value >= 1_024 && unit < units.length - 1) {
    value /= 1_024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function renderReportReady(event: ReportReady): Reply {
  const done = event.status === undefined || event.status === "done";
  const title = done ? "Statement ready" : "Statement not ready";
  const size = event.artifact?.size_bytes;
  const sha = event.artifact?.sha256;
  const items = withOptional(
    [["Order", code(clip(event.order_id))]],
    [
      ["Status", event.status ? clip(event.status, 40) : undefined],
      ["Type", event.order_type ? clip(event.order_type, 40) : undefined],
      ["Format", event.format ? clip(event.format, 10) : undefined],
      ["Size", size === undefined || size === null ? undefined : formatBytes(size)],
      ["Expires", when(event.expires_at ?? undefined)],
    ],
  );
  if (sha) items.push(["SHA-256", code(clip(sha, 70))]);
  const note = done
    ? "Download it with the order number while it lives (30 days)."
    : "The service reported this status instead of a finished file.";
  return publicReply(`${title}: ${clip(event.order_id, 40)}`, [
    header(title),
    fields(...items),
    context(note),
  ]);
}

/** Why the cycle cost what it cost, from `energy_used` and `idle_cycle`. */
function cycleReason(event: HostCycle): string {
  if (event.idle_cycle === "1") return "idle re-delegation (24 h without a transfer)";
  if (event.energy_used === "65k") return "previous transfer used at most 65,000 energy";
  if (event.energy_used === "131k") return "previous transfer used more than 65,000 energy";
  if (event.energy_used !== undefined) return `energy used: ${clip(event.energy_used, 20)}`;
  return "first delegation, or no consumption history yet";
}

export function renderHostCycle(event: HostCycle, explorerTxUrl: string): Reply {
  const charged = event.charged === undefined ? undefined : formatAmount(event.charged);
  const balance = event.balance_after === undefined ? undefined : formatAmount(event.balance_after);
  const items = withOptional(
    [
      ["Address", code(event.address)],
      ["Delegation", code(clip(event.order_id))],
    ],
    [
      ["Charged", charged],
      ["Balance after", balance],
    ],
  );
  items.push(["Cycle", cycleReason(event)]);
  items.push(["Transaction", txSpan(explorerTxUrl, event.hash)]);
  const cost = charged ? `, charged ${charged}` : "";
  const left = balance ? `, balance ${balance}` : "";
  return publicReply(`Host Mode: energy delegated to ${shortAddress(event.address)}${cost}${left}`, [
    header("Host Mode delegation"),
    fields(...items),
  ]);
}

export function renderHostPaused(event: HostPaused): Reply {
  const reason = event.reason ? clip(event.reason, 60) : "not given";
  const line =
    event.reason === "stopped"
      ? `Host Mode was stopped for ${event.address}: no more delegations or charges until it is started again.`
      : `Host Mode paused for ${event.address} (reason: ${reason}).`;
  const items: Item[] = [
    ["Address", code(event.address)],
    ["Reason", reason],
    ["At", formatTime(clip(event.timestamp, 40))],
  ];
  const reply = publicReply(`Host Mode paused: ${shortAddress(event.address)} (${reason})`, [
    header("Host Mode paused"),
    text(line),
    fields(...items),
  ]);
  // A pause nobody asked for is an alert: the channel sees one line even when the story is threaded.
  if (event.reason === "stopped") return reply;
  return { ...reply, alert: `Host Mode paused for ${event.address} (reason: ${reason}).` };
}

export function renderNotification(notification: Notification, explorerTxUrl: string): Reply {
  switch (notification.event) {
    case "delegation.confirmed":
      return renderDelegationConfirmed(notification, explorerTxUrl);
    case "bandwidth.delegated":
      return renderBandwidthDelegated(notification, explorerTxUrl);
    case "activation.confirmed":
      return renderActivationConfirmed(notification, explorerTxUrl);
    case "report.ready":
      return renderReportReady(notification);
    case "host.cycle":
      return renderHostCycle(notification, explorerTxUrl);
    case "host_paused":
      return renderHostPaused(notification);
  }
}

/** The same message for the alert channel, saying why it landed there. */
export function asAlert(reply: Reply): Reply {
  const note: Block = context(
    "No conversation of this bot is known for it (placed elsewhere, or its record expired): posted to the alert channel.",
  );
  return { ...reply, blocks: [...reply.blocks, note] };
}
