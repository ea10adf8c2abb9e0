import { formatAmount, formatEpoch } from "../format.js";
import { bold, buttons, context, fields, header, publicReply, type Reply, text } from "../reply.js";
import type { ApprovalRequest, Approvers } from "./approval-request.js";
import { SELF_APPROVAL_LINE } from "./approval-request.js";
import { whoName } from "./confirmed.js";
import type { AnyDefinition } from "./definition.js";

/** What the request is, in one phrase, through its definition: "65,000 energy for T… (5 minutes)". */
export const describeRequest = (def: AnyDefinition, request: Pick<ApprovalRequest, "payload">): string =>
  def.describe(def.schema.parse(request.payload));

/** Who may approve a definition's request: another operator or admin for a spend, its own role for a guarded action. */
export const approversOf = (def: AnyDefinition): Approvers =>
  def.kind === "spend"
    ? { role: "operator", selfLine: SELF_APPROVAL_LINE }
    : { role: def.role, selfLine: def.approvalText.self };

const minutesLeft = (request: ApprovalRequest, now: number): number =>
  Math.max(1, Math.round((request.expiresAt - now) / 60_000));

/** The request with its Approve / Reject buttons (a new round shows the moved price first). */
export function renderRequest(
  def: AnyDefinition,
  request: ApprovalRequest,
  now: number,
  note?: string,
): Reply {
  const who = whoName(request.requester);
  const what = describeRequest(def, request);
  const moved =
    request.previousQuoteTrx && request.quoteTrx
      ? [
          text(
            bold("The price moved: "),
            `approved at ${formatAmount(request.previousQuoteTrx)}, it now costs ${formatAmount(request.quoteTrx)}. Approve again to order at the new price.`,
          ),
        ]
      : [];
  const quote = def.kind === "spend" && request.quoteTrx !== undefined ? request.quoteTrx : undefined;
  const cost = quote === undefined ? "" : `, ${formatAmount(quote)}`;
  return publicReply(`Approval needed: ${who} asks for ${what}${cost}`, [
    header("Approval needed"),
    ...moved,
    ...(note === undefined ? [] : [text(note)]),
    fields(
      ["Asked by", who],
      ["What", what],
      ...(quote === undefined ? [] : [["Quote", formatAmount(quote)] as [string, string]]),
      ["Expires", `${formatEpoch(request.expiresAt)} (in ${minutesLeft(request, now)} min)`],
    ),
    text(
      def.kind === "guarded"
        ? def.approvalText.why(who)
        : `A spend at or above the approval threshold needs a second person: any other operator or admin may approve. ${who} may not approve their own request.`,
    ),
    buttons(
      { label: "Approve", token: request.tokens.approve, style: "primary" },
      { label: "Reject", token: request.tokens.reject, style: "danger" },
    ),
  ]);
}

/** A decided request: one line in place of the buttons. */
export function renderClosed(def: AnyDefinition, line: string, request: ApprovalRequest): Reply {
  return publicReply(line, [
    text(line),
    context(`Approval request by ${whoName(request.requester)} for ${describeRequest(def, request)}`),
  ]);
}

/** "Nothing was ordered." / "Nothing was deleted.": what a closed request left undone. */
export const nothingDone = (def: AnyDefinition): string =>
  def.kind === "guarded" ? def.approvalText.nothingDone : "Nothing was ordered.";

export function expiredLine(def: AnyDefinition, request: ApprovalRequest): string {
  const undone = nothingDone(def).replace(/^N/, "n").replace(/\.$/, "");
  return `This approval request expired at ${formatEpoch(request.expiresAt)}; the buttons no longer work and ${undone}. Run the command again to ask anew.`;
}

/** Appended to the order's own reply: who asked and who approved, when. */
export function approvalTrail(request: ApprovalRequest, approverName: string, at: number) {
  return context(
    `Requested by ${whoName(request.requester)} at ${formatEpoch(request.requestedAt)} · approved by ${approverName} at ${formatEpoch(at)}`,
  );
}
