import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A CSV file of `rows` (one line each) in a fresh temporary directory; returns its path. */
export function csvFile(name: string, rows: readonly string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "opsbot-csv-")), name);
  writeFileSync(path, `${rows.join("\n")}\n`);
  return path;
}
