import { formatAmount, formatEpoch, plural, shortAddress } from "../format.js";
import {
  type Block,
  buttons,
  code,
  context,
  fields,
  header,
  publicReply,
  type Reply,
  type Span,
  text,
} from "../reply.js";
import type { HostEvent } from "./host-events.js";
import type { HostLedger } from "./host-ledger.js";
import { cyclesText, readingPhrase, type StatusReading, statusWord } from "./host-status.js";

export interface HostStatusView {
  address: string;
  reading: StatusReading;
  /** The bot's record of its latest start, or null: never started through the bot. */
  ledger: HostLedger | null;
  /** The bot's last stop / pause record of the address, when later than the start. */
  ended?: HostEvent;
  now: number;
  statusToken?: string;
}

type Item = [label: string, value: string | Span | Span[]];

function serviceItems(view: HostStatusView): Item[] {
  if (!view.reading.ok) return [];
  const data = view.reading.data;
  const items: Item[] = [];
  const status = statusWord(data.status);
  if (status !== undefined) items.push(["Status", status]);
  if (data.mode !== undefined) items.push(["Mode", data.mode ?? "none"]);
  const ordered = cyclesText(data.cycles_ordered);
  if (ordered !== undefined) items.push(["Cycles ordered", ordered]);
  const remaining = cyclesText(data.cycles_remaining);
  if (remaining !== undefined) items.push(["Cycles remaining", remaining]);
  if (data.order_id !== undefined)
    items.push(["Order", data.order_id === null ? "none" : code(String(data.order_id))]);
  return items;
}

function ledgerItems(ledger: HostLedger): Item[] {
  const items: Item[] = [
    ["Started by", `${ledger.run.by}, ${formatEpoch(ledger.run.at)}`],
    ["Cycles seen", `${plural(ledger.cycles, "cycle", "cycles")} in callbacks since the start`],
  ];
  const unpriced =
    ledger.withoutAmount > 0
      ? ` (${plural(ledger.withoutAmount, "callback", "callbacks")} without an amount)`
      : "";
  items.push(["Charged since start", `${formatAmount(ledger.chargedTrx)}${unpriced}`]);
  const last = ledger.last;
  if (last) {
    const charged = last.chargedTrx === undefined ? "" : `, ${formatAmount(last.chargedTrx)}`;
    items.push([
      "Last cycle",
      [{ text: `${formatEpoch(last.at)}${charged}, delegation ` }, code(last.orderId)],
    ]);
  } else {
    items.push(["Last cycle", "none seen yet"]);
  }
  return items;
}

function endedLine(event: HostEvent): string | undefined {
  if (event.event === "stopped") return `Stopped through the bot at ${formatEpoch(event.at)}.`;
  if (event.event === "paused")
    return `The service reported it paused at ${formatEpoch(event.at)} (reason: ${event.reason ?? "not given"}).`;
  return undefined;
}

/** Time Status (only the fields the reply holds) beside what the bot saw since its start. */
export function renderHostStatus(view: HostStatusView): Reply {
  const { address, reading, ledger } = view;
  const blocks: Block[] = [
    header("Host Mode status"),
    fields(["Address", code(address)], ...serviceItems(view)),
  ];
  if (!reading.ok) blocks.push(text(`Time Status: ${reading.line}`));
  if (ledger) {
    blocks.push(text("What the bot saw:"), fields(...ledgerItems(ledger)));
    const ended = view.ended && endedLine(view.ended);
    if (ended) blocks.push(text(ended));
  } else {
    blocks.push(
      text("The bot has no record of starting Host Mode for this address: shown from the service alone."),
    );
  }
  if (view.statusToken) blocks.push(buttons({ label: "Status", token: view.statusToken }));
  blocks.push(context(`Read from the service's Time Status at ${formatEpoch(view.now)}.`));
  const said = reading.ok ? readingPhrase(reading.data) : "Time Status not read";
  const seen = ledger
    ? `; ${ledger.cycles} cycle(s) seen, ${formatAmount(ledger.chargedTrx)} since the start`
    : "";
  return publicReply(`Host Mode for ${shortAddress(address)}: ${said}${seen}`, blocks);
}
