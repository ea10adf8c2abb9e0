import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileAttachment, Reply } from "../../src/core/index.js";

/**
 * The console cannot show a file, so the demo writes each one into a private temp directory
 * and prints its path. Names come from outside: only a safe base name is kept.
 */
export interface FileSaver {
  save(reply: Reply): Promise<Map<FileAttachment, string>>;
}

export function createFileSaver(dir?: string): FileSaver {
  let target: Promise<string> | undefined = dir === undefined ? undefined : Promise.resolve(dir);
  let counter = 0;

  return {
    async save(reply) {
      const saved = new Map<FileAttachment, string>();
      for (const block of reply.blocks) {
        if (block.type !== "file") continue;
        target ??= mkdtemp(join(tmpdir(), "opsbot-files-"));
        counter += 1;
        const path = join(await target, `${counter}-${safeName(block.file.filename)}`);
        await writeFile(path, block.file.bytes);
        saved.set(block.file, path);
      }
      return saved;
    },
  };
}

function safeName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  return cleaned.length > 0 ? cleaned.slice(0, 100) : "file";
}
