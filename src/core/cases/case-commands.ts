import { messagesOf } from "../alerts/index.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { conversationKey } from "../invocation.js";
import { pageNote, pageOf, parsePage } from "../paging.js";
import { context, errorReply, publicReply, type Reply, text } from "../reply.js";
import { can, refusalLine } from "../roles.js";
import { MAX_REASON } from "./case-buttons.js";
import { applyCaseOp, type CaseOp } from "./case-ops.js";
import { CASE_ID_PATTERN, CLOSED_STATES, readCase, readCases } from "./case-record.js";
import { caseLine, renderCase, renderTimeline, stateOf } from "./case-render.js";

/** `cases [all] [page]`; `case <id>`, `case note <id> <text>`, `case clear|report <id> <reason>`. */
const DAY_MS = 24 * 3_600_000;
const KEEP_CLOSED_MS = 30 * DAY_MS;
/** Cases on one page: their lines fit one text block of every platform (Slack: 3,000 characters). */
const PAGE_SIZE = 20;
const CASES_USAGE = "Usage: cases [all] [page] — `all` adds the cases closed in the last 30 days.";

export const casesCommand: CommandDefinition = {
  verb: "cases",
  role: "viewer",
  summary: "open AML cases (all: closed ones too)",
  usage: "cases [all] [page]",
  example: "cases all",
  async run({ args, deps }) {
    const withClosed = args[0] === "all";
    const rest = withClosed ? args.slice(1) : args;
    const page = parsePage(rest[0], withClosed ? "cases all" : "cases");
    if (rest.length > 1 || !page.ok) return errorReply(CASES_USAGE);
    const now = deps.now();
    const all = (await readCases(deps.store))
      .filter((c) => !CLOSED_STATES.has(c.state) || (withClosed && now - (c.closedAt ?? 0) <= KEEP_CLOSED_MS))
      .sort((a, b) => b.openedAt - a.openedAt);
    if (all.length === 0)
      return publicReply("No AML cases.", [
        text(withClosed ? "No AML cases in the last 30 days." : "No open AML cases."),
      ]);
    const head = `${all.length} AML case${all.length === 1 ? "" : "s"}`;
    const shown = pageOf(all, page.value, PAGE_SIZE);
    const lines = shown.shown.map((c) => `• ${caseLine(c, now)}`);
    const note = pageNote(withClosed ? "cases all" : "cases", shown);
    return publicReply(head, [
      text(head),
      text(lines.join("\n")),
      ...(note === undefined ? [] : [context(note)]),
    ]);
  },
};

const USAGE =
  "Usage: case <id> · case note <id> <text> · case clear <id> <reason> · case report <id> <reason> (an id looks like C12).";

export const caseCommand: CommandDefinition = {
  verb: "case",
  role: "viewer",
  summary: "an AML case's timeline, or a note on it",
  usage: "case <id> | case note <id> <text>",
  example: "case note C12 customer sent documents",
  details:
    "`case clear <id> <reason>` and `case report <id> <reason>` close a case with a reason (the Clear… and Report… buttons ask for it).",
  freeTextAfter: 2,
  async run(ctx) {
    const [first, ...rest] = ctx.args;
    if (first === undefined) return errorReply(USAGE);
    if (CASE_ID_PATTERN.test(first) && rest.length === 0) return showCase(ctx, first);
    if (first === "note" || first === "clear" || first === "report") return changeCase(ctx, first, rest);
    return errorReply(USAGE);
  },
};

async function showCase({ deps }: CommandContext, id: string): Promise<Reply> {
  const record = await readCase(deps.store, id);
  if (record === null) return errorReply(`There is no case ${id}; \`cases all\` lists them.`);
  return renderTimeline(record, deps.now());
}

async function changeCase(ctx: CommandContext, op: CaseOp, words: string[]): Promise<Reply> {
  const { deps, invocation, role } = ctx;
  if (!can(role, "operator"))
    return errorReply(refusalLine(`case ${op}`, "operator", role, invocation.actor));
  // Parsed, the text after the id is one arg as typed (the command's `freeTextAfter`).
  const [id, ...typed] = words;
  if (id === undefined || !CASE_ID_PATTERN.test(id)) return errorReply(USAGE);
  const note = typed.join(" ").trim();
  const noun = op === "note" ? "A note" : "A reason";
  if (note === "")
    return errorReply(
      `${noun} is needed: case ${op} ${id} <${op === "note" ? "text" : "reason"}>. Nothing changed.`,
    );
  if (note.length > MAX_REASON)
    return errorReply(`${noun} is at most ${MAX_REASON} characters. Nothing changed.`);
  const done = await applyCaseOp(deps, {
    id,
    op,
    actor: invocation.actor,
    conversation: invocation.conversation,
    note,
  });
  if (!done.ok) return errorReply(done.line);
  // Where the case has its message (the alert destination, a Clear… form's answer), that message
  // was just edited: one line says what happened instead of a second copy of the case.
  const messages = await messagesOf(deps.store, id);
  if (messages.has(conversationKey(invocation.conversation))) {
    const line = `Case ${id} ${op === "note" ? "has a new note" : stateOf(done.record)}: ${note}`;
    return publicReply(line, [text(line)]);
  }
  const reply = await renderCase(deps, done.record, invocation.conversation);
  // Posted here, the case message carries no `alertOf`: the alert destination's one stays the one edited.
  const { alertOf: _own, ...rest } = reply;
  return rest;
}
