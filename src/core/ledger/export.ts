import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Store } from "../../store/store.js";
import { LEDGER_HEADER, rowOf } from "./csv-row.js";
import { rangeEntries } from "./ledger.js";

/**
 * `audit export`: the ledger's entries of a range of UTC days as the contract's CSV, written to a
 * private temp file as they are read (a day's slice at a time), so 100 000 rows take the memory of
 * one slice. The file is removed a while after it was posted.
 */
const KEEP_FILE_MS = 15 * 60_000;

export interface WrittenExport {
  path: string;
  sizeBytes: number;
  rows: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** The last row's hash; empty for an export with no rows. */
  lastHash: string;
}

/** The CSV text of a range, line by line (header first; every line ends with `\n`). */
async function* exportLines(
  store: Store,
  from: string,
  to: string,
  seen: { rows: number; firstSeq: number | null; lastSeq: number | null; lastHash: string },
): AsyncGenerator<string> {
  yield `${LEDGER_HEADER}\n`;
  let batch = "";
  for await (const entry of rangeEntries(store, from, to)) {
    seen.rows += 1;
    seen.firstSeq ??= entry.seq;
    seen.lastSeq = entry.seq;
    seen.lastHash = entry.hash;
    batch += `${rowOf(entry)}\n`;
    if (batch.length >= 64 * 1024) {
      yield batch;
      batch = "";
    }
  }
  if (batch !== "") yield batch;
}

export async function writeExport(store: Store, from: string, to: string): Promise<WrittenExport> {
  const dir = await mkdtemp(join(tmpdir(), "opsbot-audit-"));
  const path = join(dir, `audit-${from}_${to}.csv`);
  const seen = {
    rows: 0,
    firstSeq: null as number | null,
    lastSeq: null as number | null,
    lastHash: "",
  };
  await pipeline(Readable.from(exportLines(store, from, to, seen)), createWriteStream(path, { mode: 0o600 }));
  setTimeout(() => void rm(dir, { recursive: true, force: true }).catch(() => {}), KEEP_FILE_MS).unref();
  return { path, sizeBytes: (await stat(path)).size, ...seen };
}
