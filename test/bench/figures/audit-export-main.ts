import { writeFileSync } from "node:fs";
import { measureAuditExport } from "./audit-export.js";

/** Figure 17 in its own process: `<redis url> <result file>`; the result is written as JSON. */
const [url, resultFile] = process.argv.slice(2);
if (url === undefined || resultFile === undefined)
  throw new Error("usage: audit-export-main <redis url> <result file>");
writeFileSync(resultFile, JSON.stringify(await measureAuditExport(url)));
// Done: whatever a library left open (a timer, a socket) does not keep the figure waiting.
process.exit(0);
