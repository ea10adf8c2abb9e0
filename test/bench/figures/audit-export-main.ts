import { writeFileSync } from "node:fs";
import { fillAuditLedger, measureAuditExport } from "./audit-export.js";

/**
 * Figure 17 in processes of its own: `fill <redis url> <prefix> <result file>`, then
 * `measure <redis url> <prefix> <file bytes> <result file>`; each writes its result as JSON.
 */
const [mode, url, prefix, ...rest] = process.argv.slice(2);
const resultFile = rest.at(-1);
if (url === undefined || prefix === undefined || resultFile === undefined) {
  throw new Error("usage: audit-export-main fill|measure <redis url> <prefix> [<file bytes>] <result file>");
}
const result =
  mode === "fill"
    ? await fillAuditLedger(url, prefix)
    : await measureAuditExport(url, prefix, Number(rest[0]));
writeFileSync(resultFile, JSON.stringify(result));
// Done: whatever a library left open (a timer, a socket) does not keep the figure waiting.
process.exit(0);
