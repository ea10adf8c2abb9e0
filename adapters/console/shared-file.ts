import { open } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../../src/core/index.js";

/**
 * The console's way to share a file with a command: a word `@<path>` (as curl reads `@file`), e.g.
 * `energy @payouts.csv`. The file is read here, at most SHARED_FILE_MAX_BYTES of it; the command
 * decides what it accepts. A path that cannot be read arrives as an unreadable file saying why.
 */
export async function fileOfLine(line: string, cwd = process.cwd()): Promise<SharedFile | undefined> {
  const word = line.split(/\s+/).find((w) => w.startsWith("@") && w.length > 1);
  if (word === undefined) return undefined;
  const path = resolve(cwd, word.slice(1));
  const name = basename(path);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const { size } = await handle.stat();
    if (size > SHARED_FILE_MAX_BYTES) return { name, sizeBytes: size };
    const bytes = new Uint8Array(size);
    await handle.read(bytes, 0, size, 0);
    return { name, sizeBytes: size, bytes };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory" : "not readable";
    return { name, sizeBytes: 0, unreadable: why };
  } finally {
    await handle?.close();
  }
}
