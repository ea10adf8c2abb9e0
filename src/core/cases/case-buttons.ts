import { z } from "zod";
import type { ActionContext, ActionHandler } from "../command.js";
import type { FormSpec } from "../feature.js";
import { fail, ok } from "../parse/result.js";
import { context, errorReply, type Reply } from "../reply.js";
import { applyCaseOp } from "./case-ops.js";
import { CASE_ID_PATTERN } from "./case-record.js";
import { CLEAR_KIND, REPORT_KIND, renderCase, TAKE_KIND } from "./case-render.js";

/**
 * Take, Clear… and Report… on a case's message (operators and admins: the core refuses a viewer
 * with one line and the buttons stay). Take acts at once; Clear… and Report… ask for a reason
 * through the forms (a Slack modal, a Telegram reply prompt, a console prompt), whose answer runs
 * `case clear <id> <reason>` / `case report <id> <reason>`: nothing is closed without one.
 */
const payloadSchema = z.object({ id: z.string().regex(CASE_ID_PATTERN) });

const REASON_FORM = "case-reason";
export const MAX_REASON = 500;

/**
 * The reason form: one free-text field (kept as typed), whose answer completes the line the button
 * asked with; its title names the case (`Reply.asks.title`). A blank or too long reason is refused
 * while the form is still open.
 */
export const reasonForm: FormSpec = {
  verb: REASON_FORM,
  title: "Reason",
  submit: "Close the case",
  fields: [
    {
      name: "reason",
      label: "Reason (kept in the case and the audit log)",
      placeholder: "why",
      freeText: { maxChars: MAX_REASON },
    },
  ],
  prompt: "Reply to this message with the reason.",
  placeholder: "the reason",
  check: ([reason = ""]) =>
    reason.trim() === ""
      ? fail("A reason is needed; nothing was closed.")
      : reason.length > MAX_REASON
        ? fail(
            `The reason is too long (${reason.length} characters; at most ${MAX_REASON}). Nothing was closed.`,
          )
        : ok(reason),
  fieldOf: () => "reason",
};

async function take(ctx: ActionContext, payload: unknown): Promise<Reply> {
  const { id } = payloadSchema.parse(payload);
  const { deps, invocation } = ctx;
  const done = await applyCaseOp(deps, {
    id,
    op: "take",
    actor: invocation.actor,
    conversation: invocation.conversation,
    ...(invocation.messageId !== undefined && { pressed: invocation.messageId }),
  });
  if (done.record === null) return errorReply(done.ok ? "" : done.line);
  const reply = await renderCase(deps, done.record, invocation.conversation);
  return done.ok ? reply : { ...reply, blocks: [...reply.blocks, context(done.line)] };
}

function asksReason(kind: string, verb: "clear" | "report"): ActionHandler {
  return {
    kind,
    role: "operator",
    async run(_ctx, payload) {
      const { id } = payloadSchema.parse(payload);
      const line = `Reason for ${verb === "clear" ? "clearing" : "reporting"} case ${id}?`;
      const title = `${verb === "clear" ? "Clear" : "Report"} case ${id}`;
      return {
        ...errorReply(line),
        asks: {
          form: REASON_FORM,
          line: `case ${verb} ${id}`,
          prompt: `${line} ${reasonForm.prompt}`,
          title,
        },
      };
    },
  };
}

export const caseActions: readonly ActionHandler[] = [
  { kind: TAKE_KIND, role: "operator", run: take },
  asksReason(CLEAR_KIND, "clear"),
  asksReason(REPORT_KIND, "report"),
];
