import { formatAmount, formatEpoch } from "../format.js";
import { formatCount } from "../parse/echo.js";
import { bold, buttons, context, fields, header, publicReply, type Reply, text } from "../reply.js";
import { whoName } from "../spend/confirmed.js";
import type { ApprovalRequest } from "./request.js";

/** What the spend is, in one phrase: "65,000 energy for T… (5 minutes)". */
export function describeSpend(request: Pick<ApprovalRequest, "spend" | "payload">): string {
  const p = request.payload as { address?: string; amount?: number; route?: string };
  if (request.spend === "payout") {
    const run = request.payload as { items?: unknown[]; energy?: number };
    return `a payout run of ${formatCount(run.energy ?? 0)} energy to ${formatCount(run.items?.length ?? 0)} addresses (1 hour, one orchestrator order)`;
  }
  if (request.spend === "host") return `Host Mode (infinity) for ${p.address ?? "?"}`;
  if (request.spend === "subuser")
    return `deleting sub-user ${(request.payload as { userId?: number }).userId ?? "?"}`;
  const rental = p.route === "orchestrator" ? "1 hour, through the orchestrator" : "5 minutes";
  return `${formatCount(p.amount ?? 0)} energy for ${p.address ?? "?"} (${rental})`;
}

const minutesLeft = (request: ApprovalRequest, now: number): number =>
  Math.max(1, Math.round((request.expiresAt - now) / 60_000));

/** The request with its Approve / Reject buttons (a new round shows the moved price first). */
export function renderRequest(request: ApprovalRequest, now: number, note?: string): Reply {
  const who = whoName(request.requester);
  const what = describeSpend(request);
  const moved = request.previousQuoteTrx
    ? [
        text(
          bold("The price moved: "),
          `approved at ${formatAmount(request.previousQuoteTrx)}, it now costs ${formatAmount(request.quoteTrx)}. Approve again to order at the new price.`,
        ),
      ]
    : [];
  const deletion = request.spend === "subuser";
  const cost = deletion ? "" : `, ${formatAmount(request.quoteTrx)}`;
  return publicReply(`Approval needed: ${who} asks for ${what}${cost}`, [
    header("Approval needed"),
    ...moved,
    ...(note === undefined ? [] : [text(note)]),
    fields(
      ["Asked by", who],
      ["What", what],
      ...(deletion ? [] : [["Quote", formatAmount(request.quoteTrx)] as [string, string]]),
      ["Expires", `${formatEpoch(request.expiresAt)} (in ${minutesLeft(request, now)} min)`],
    ),
    text(
      deletion
        ? `Deleting a sub-user is irreversible and needs a second person (OPS_APPROVAL_TRX is set): any other admin may approve. ${who} may not approve their own request.`
        : `A spend at or above the approval threshold needs a second person: any other operator or admin may approve. ${who} may not approve their own request.`,
    ),
    buttons(
      { label: "Approve", token: request.tokens.approve, style: "primary" },
      { label: "Reject", token: request.tokens.reject, style: "danger" },
    ),
  ]);
}

/** A decided request: one line in place of the buttons. */
export function renderClosed(line: string, request: ApprovalRequest): Reply {
  return publicReply(line, [
    text(line),
    context(`Approval request by ${whoName(request.requester)} for ${describeSpend(request)}`),
  ]);
}

/** "Nothing was ordered." / "Nothing was deleted.": what a closed request left undone. */
export const nothingDone = (request: Pick<ApprovalRequest, "spend">): string =>
  request.spend === "subuser" ? "Nothing was deleted." : "Nothing was ordered.";

export function expiredLine(request: ApprovalRequest): string {
  const undone = request.spend === "subuser" ? "nothing was deleted" : "nothing was ordered";
  return `This approval request expired at ${formatEpoch(request.expiresAt)}; the buttons no longer work and ${undone}. Run the command again to ask anew.`;
}

/** Appended to the order's own reply: who asked and who approved, when. */
export function approvalTrail(request: ApprovalRequest, approverName: string, at: number) {
  return context(
    `Requested by ${whoName(request.requester)} at ${formatEpoch(request.requestedAt)} · approved by ${approverName} at ${formatEpoch(at)}`,
  );
}
