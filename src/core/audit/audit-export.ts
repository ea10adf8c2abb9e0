import type { CommandContext } from "../command.js";
import { writeExport } from "../ledger/export.js";
import { dayOf, daysBetween } from "../ledger/ledger.js";
import { parseIsoDate } from "../parse/dates.js";
import { code, context, errorReply, file, publicReply, type Reply, text } from "../reply.js";
import { issueAuditCode } from "../verification/audit-code.js";

/**
 * `audit export [<from> [<to>]]`: the spend ledger of those UTC days (default today; `<from>`
 * alone: from then to today; at most 92 days) as the contract's CSV file, with a code
 * `OPS-AUDIT-…` that binds its range, rows and last hash.
 */
const EXPORT_MAX_DAYS = 92;
const DAY_MS = 86_400_000;
const USAGE =
  "audit export [<from> [<to>]] — UTC days as YYYY-MM-DD, at most 92 days, e.g. audit export 2026-11-01 2026-11-28";

function rangeOf(args: readonly string[], now: number): { from: string; to: string } | string {
  const today = dayOf(now);
  if (args.length > 2) return `Too many words. Usage: ${USAGE}`;
  const days: string[] = [];
  for (const arg of args) {
    const parsed = parseIsoDate(arg);
    if (!parsed.ok) return `Not exported: ${parsed.error}.`;
    days.push(dayOf(parsed.value * DAY_MS));
  }
  const [from = today, to = today] = days;
  if (from > to) return `Not exported: ${from} is after ${to}; give <from> first, then <to>.`;
  if (to > today) return `Not exported: ${to} is in the future (today is ${today} UTC).`;
  if (daysBetween(from, to).length > EXPORT_MAX_DAYS)
    return `Not exported: ${from}..${to} is more than ${EXPORT_MAX_DAYS} days; export it in parts.`;
  return { from, to };
}

export async function runAuditExport(ctx: CommandContext, args: readonly string[]): Promise<Reply> {
  const { deps } = ctx;
  const range = rangeOf(args, deps.now());
  if (typeof range === "string") return errorReply(range);
  const written = await writeExport(deps.store, range.from, range.to);
  const auditCode = await issueAuditCode(deps, {
    v: 1,
    from: range.from,
    to: range.to,
    rows: written.rows,
    firstSeq: written.firstSeq,
    lastSeq: written.lastSeq,
    lastHash: written.lastHash,
    issuedAt: new Date(deps.now()).toISOString(),
  });
  const span = range.from === range.to ? range.from : `${range.from}..${range.to}`;
  const rows = `${written.rows} row${written.rows === 1 ? "" : "s"}`;
  const seqs = written.firstSeq === null ? "" : ` (seq ${written.firstSeq}–${written.lastSeq})`;
  const line = `Audit export ${span}: ${rows}${seqs}. Code ${auditCode}`;
  // The page's address only when PUBLIC_URL is set: the demo's made-up URL is never printed.
  const { verifyUrl } = deps.settings.cases;
  const where = verifyUrl ? ` or at ${verifyUrl}?code=${encodeURIComponent(auditCode)}` : "";
  return publicReply(line, [
    written.rows === 0
      ? text(`Audit export ${span}: no spends in those days.`)
      : text(`Audit export ${span}: ${rows}${seqs}, last hash `, code(written.lastHash), "."),
    text("Verification code: ", code(auditCode)),
    file({
      filename: `audit-${span.replace("..", "_")}.csv`,
      contentType: "text/csv",
      path: written.path,
      sizeBytes: written.sizeBytes,
      title: `Spend ledger ${span}`,
    }),
    context("Anyone can check the file and its code with ", code(`verify ${auditCode}`), `${where}.`),
  ]);
}
