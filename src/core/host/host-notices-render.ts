import type { HostCycle, HostPaused } from "../../service/webhook-events.js";
import { clip, formatAmount, formatTime, shortAddress, txSpan } from "../format.js";
import { type Item, withOptional } from "../notices/notice-parts.js";
import { code, fields, header, publicReply, type Reply, text } from "../reply.js";

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
