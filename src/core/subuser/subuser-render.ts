import type { SubuserDeletion } from "../../service/account.js";
import { clip, formatEpoch } from "../format.js";
import { formatCount } from "../parse/echo.js";
import { bold, buttons, code, context, fields, header, publicReply, type Reply, text } from "../reply.js";

/** What the service does, in the spec's words: said before the button and never after it is pressed. */
const WHAT_HAPPENS = [
  "The sub-user's order and delegation history moves to the parent account (the bot's account).",
  "The sub-user's API key, settings, referral data and deposit address are removed; the service keeps an audit record. Referral earnings are unaffected.",
  "A non-zero balance on the sub-user is NOT transferred to the parent: move it out first.",
  "Only a sub-user of this account (external id starting with SUB) can be deleted, never a real account.",
];

export interface DeleteQuoteView {
  userId: number;
  tokens: { confirm: string; cancel: string };
  expiresAt: number;
  /** OPS_APPROVAL_TRX is set: the click asks a second admin. */
  approval: boolean;
}

export function renderDeleteQuote(view: DeleteQuoteView): Reply {
  const after = view.approval
    ? "Pressing it asks a second admin to approve (two-person approval, OPS_APPROVAL_TRX); the deletion runs when they approve."
    : "Pressing it deletes the sub-user at once.";
  return publicReply(`Delete sub-user ${view.userId}? Irreversible; a non-zero balance is not transferred.`, [
    header(`Delete sub-user ${view.userId}?`),
    text(bold("This cannot be undone. "), "In one transaction the service:"),
    ...WHAT_HAPPENS.map((line) => text(`• ${line}`)),
    text(`Nothing has been sent to the service yet. ${after}`),
    buttons(
      { label: "Delete sub-user", token: view.tokens.confirm, style: "danger" },
      { label: "Cancel", token: view.tokens.cancel },
    ),
    context(
      `The button works once, in this conversation, until ${formatEpoch(view.expiresAt)} (5 minutes); only an admin can press it.`,
    ),
  ]);
}

export function renderDeleted(result: SubuserDeletion, by: string): Reply {
  const line = `Sub-user ${result.user_id} deleted: ${formatCount(result.total_reassigned)} record(s) reassigned to the parent ${result.parent_user_id}, ${formatCount(result.total_deleted)} record(s) deleted.`;
  return publicReply(line, [
    header("Sub-user deleted"),
    fields(
      ["User", code(String(result.user_id))],
      ["External id", code(clip(result.google_id, 60))],
      ["Parent", code(String(result.parent_user_id))],
      ["Reassigned", formatCount(result.total_reassigned)],
      ["Deleted", formatCount(result.total_deleted)],
    ),
    text(`Service: ${clip(result.message, 200)}`),
    context(`Deleted by ${by}. A balance the sub-user had was not transferred. This cannot be undone.`),
  ]);
}
