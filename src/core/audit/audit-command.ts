import { formatAuditLine, readAudit } from "../audit-log.js";
import type { CommandDefinition } from "../command.js";
import { ledgerHead } from "../ledger/ledger.js";
import { type Block, errorReply, header, type Reply, text } from "../reply.js";
import { runAuditExport } from "./audit-export.js";
import { ledgerLine, newestEntries } from "./ledger-lines.js";

const DEFAULT_COUNT = 10;
const MAX_COUNT = 50;
/** Lines per text block: keeps each block well under Slack's 3000-character section limit. */
const LINES_PER_BLOCK = 10;
const USAGE = `audit [count] [page] (count 1–${MAX_COUNT}, default ${DEFAULT_COUNT}) · audit export [<from> [<to>]] · audit log [count]`;

/**
 * `audit [n] [page]`: the spend ledger's newest entries (every spend, refusal and sub-user deletion:
 * who, what, what it cost, the result), paged; `audit export …` the ledger as a CSV file an auditor
 * can verify; `audit log [n]` the log of every action, agents' reads included. Admins only.
 */
export const auditCommand: CommandDefinition = {
  verb: "audit",
  role: "admin",
  summary: "the spend ledger, newest first; export: a CSV anyone can verify",
  usage: "audit [count] [page] | audit export [<from> [<to>]]",
  example: "audit export 2026-11-01",
  async run(ctx) {
    const [first, ...rest] = ctx.args;
    if (first === "export") return runAuditExport(ctx, rest);
    if (first === "log") {
      const count = countOf(rest[0]);
      if (count === undefined || rest.length > 1) return errorReply(`Usage: ${USAGE}`);
      return logReply(await readAudit(ctx.deps.store, count));
    }
    const count = countOf(first);
    const page = ctx.args[1] === undefined ? 1 : Number(ctx.args[1]);
    if (count === undefined || ctx.args.length > 2 || !Number.isInteger(page) || page < 1) {
      return errorReply(
        `audit takes a count from 1 to ${MAX_COUNT} and a page, e.g. "audit 20 2". Usage: ${USAGE}`,
      );
    }
    const { deps } = ctx;
    const total = (await ledgerHead(deps.store)).seq;
    const entries = await newestEntries(deps.store, deps.now(), (page - 1) * count, count);
    return ledgerReply(entries.map(ledgerLine), { page, pages: Math.max(1, Math.ceil(total / count)) });
  },
};

function countOf(raw: string | undefined): number | undefined {
  const count = raw === undefined ? DEFAULT_COUNT : Number(raw);
  return Number.isInteger(count) && count >= 1 && count <= MAX_COUNT ? count : undefined;
}

function linesBlocks(title: string, lines: readonly string[]): Block[] {
  const blocks: Block[] = [header(title)];
  for (let i = 0; i < lines.length; i += LINES_PER_BLOCK) {
    blocks.push(text(lines.slice(i, i + LINES_PER_BLOCK).join("\n")));
  }
  return blocks;
}

function ledgerReply(lines: readonly string[], at: { page: number; pages: number }): Reply {
  if (lines.length === 0) {
    const line =
      at.page === 1 ? "No spends in the ledger yet." : `No page ${at.page}: the ledger has ${at.pages}.`;
    return { summary: line, blocks: [text(line)], visibility: "private" };
  }
  const title = `Spend ledger, newest first (page ${at.page} of ${at.pages})`;
  return { summary: title, blocks: linesBlocks(title, lines), visibility: "private" };
}

function logReply(entries: Awaited<ReturnType<typeof readAudit>>): Reply {
  if (entries.length === 0) {
    return {
      summary: "No audit entries yet.",
      blocks: [text("No audit entries yet.")],
      visibility: "private",
    };
  }
  const title = `Last ${entries.length} audit log entr${entries.length === 1 ? "y" : "ies"}`;
  return { summary: title, blocks: linesBlocks(title, entries.map(formatAuditLine)), visibility: "private" };
}
