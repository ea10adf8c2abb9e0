import { formatAuditLine, readAudit } from "../audit-log.js";
import type { CommandDefinition } from "../command.js";
import { type Block, errorReply, header, type Reply, text } from "../reply.js";

const DEFAULT_COUNT = 10;
const MAX_COUNT = 50;
/** Lines per text block: keeps each block well under Slack's 3000-character section limit. */
const LINES_PER_BLOCK = 10;

/** `audit [n]`: the last n spending outcomes, compactly. Admins only; shown to the asker alone. */
export const auditCommand: CommandDefinition = {
  verb: "audit",
  role: "admin",
  summary: `the last spending actions (default ${DEFAULT_COUNT}, at most ${MAX_COUNT})`,
  usage: "audit [count]",
  example: "audit 20",
  async run(ctx) {
    const raw = ctx.args[0];
    const count = raw === undefined ? DEFAULT_COUNT : Number(raw);
    if (ctx.args.length > 1 || !Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
      return errorReply(`audit takes a count from 1 to ${MAX_COUNT}, e.g. "audit 20".`);
    }
    return auditReply(await readAudit(ctx.deps.store, count));
  },
};

function auditReply(entries: Awaited<ReturnType<typeof readAudit>>): Reply {
  if (entries.length === 0) {
    return {
      summary: "No audit entries yet.",
      blocks: [text("No audit entries yet.")],
      visibility: "private",
    };
  }
  const title = `Last ${entries.length} audit entr${entries.length === 1 ? "y" : "ies"}`;
  const lines = entries.map(formatAuditLine);
  const blocks: Block[] = [header(title)];
  for (let i = 0; i < lines.length; i += LINES_PER_BLOCK) {
    blocks.push(text(lines.slice(i, i + LINES_PER_BLOCK).join("\n")));
  }
  return { summary: title, blocks, visibility: "private" };
}
