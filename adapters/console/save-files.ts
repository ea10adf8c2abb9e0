import { copyFile, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileAttachment, ImageAttachment, Reply } from "../../src/core/index.js";

/**
 * The console cannot show a file, so the demo writes each one into a private temp directory
 * and prints its path. Names come from outside: only a safe base name is kept.
 */
export interface FileSaver {
  /** Where each file and picture of the reply was written. */
  save(reply: Reply): Promise<Map<FileAttachment | ImageAttachment, string>>;
}

export function createFileSaver(dir?: string): FileSaver {
  let target: Promise<string> | undefined = dir === undefined ? undefined : Promise.resolve(dir);
  let counter = 0;

  return {
    async save(reply) {
      const saved = new Map<FileAttachment | ImageAttachment, string>();
      for (const block of reply.blocks) {
        const item =
          block.type === "file"
            ? {
                key: block.file,
                name: block.file.filename,
                bytes: block.file.bytes,
                from: fromPath(block.file),
              }
            : block.type === "image"
              ? { key: block.image, name: block.image.filename, bytes: block.image.png }
              : undefined;
        if (item === undefined) continue;
        target ??= mkdtemp(join(tmpdir(), "opsbot-files-"));
        counter += 1;
        const path = join(await target, `${counter}-${safeName(item.name)}`);
        if (item.bytes !== undefined) await writeFile(path, item.bytes);
        else if (item.from !== undefined) await copyFile(item.from, path);
        saved.set(item.key, path);
      }
      return saved;
    },
  };
}

const fromPath = (file: FileAttachment): string | undefined => ("path" in file ? file.path : undefined);

function safeName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  return cleaned.length > 0 ? cleaned.slice(0, 100) : "file";
}
