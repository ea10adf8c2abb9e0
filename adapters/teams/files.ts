import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FileAttachment } from "../../src/core/index.js";
import type { HttpRoute } from "../../src/http/server.js";
import { sendText } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";

/**
 * Files for Teams (certificates, exports, payout outcomes) as download links:
 * `<PUBLIC_URL>/files/<token>`. The token names the file, carries its expiry and is signed
 * (HMAC-SHA256 under a key derived from the bot's secret), so a wrong, altered or expired token is
 * a 404. A file of up to STORE_MAX_BYTES waits in the shared store for a day (any instance serves
 * it). A larger file written to disk (an audit export) is copied, by the kernel, into the bot's
 * own directory under a name that carries its expiry, and streamed from there: memory stays flat
 * whatever its size. Only the instance that made such a link holds its file; `sweep` removes the
 * files whose day has passed.
 */
const FILE_TTL_MS = 24 * 3_600_000;
/** Larger files are served from disk, not kept in the store. */
const STORE_MAX_BYTES = 1_048_576;
const KEY = (id: string) => `teams:file:${id}`;
/** `<expiry, base 36>.<id>.file`: what `sweep` may remove, and when. */
const DISK_NAME = /^([0-9a-z]+)\.([\w-]{22})\.file$/;

interface StoredFile {
  filename: string;
  contentType: string;
  /** The bytes, for a file kept in the store. */
  base64?: string;
  /** The size, for a file on this instance's disk. */
  diskBytes?: number;
}

export interface FileLinkOptions {
  store: Store;
  secret: string;
  publicUrl: string;
  now?: () => number;
  /** Where files served from disk are kept (default `<tmpdir>/opsbot-teams-files`). */
  dir?: string;
}

export function createFileLinks(options: FileLinkOptions) {
  const now = options.now ?? Date.now;
  const dir = options.dir ?? join(tmpdir(), "opsbot-teams-files");
  const key = Buffer.from(hkdfSync("sha256", options.secret, "opsbot", "opsbot.teams.files.v1", 32));
  const sign = (text: string) => createHmac("sha256", key).update(text).digest("base64url");
  const diskPath = (id: string, expires: string) => join(dir, `${expires}.${id}.file`);

  async function link(file: FileAttachment): Promise<string> {
    const id = randomBytes(16).toString("base64url");
    const expires = (now() + FILE_TTL_MS).toString(36);
    const meta = { filename: file.filename, contentType: file.contentType };
    let stored: StoredFile;
    if (file.bytes !== undefined) {
      stored = { ...meta, base64: Buffer.from(file.bytes).toString("base64") };
    } else if (file.sizeBytes <= STORE_MAX_BYTES) {
      stored = { ...meta, base64: (await readFile(file.path)).toString("base64") };
    } else {
      // The export's own temp file is removed long before the link expires: the link keeps a copy.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await copyFile(file.path, diskPath(id, expires));
      stored = { ...meta, diskBytes: file.sizeBytes };
    }
    await options.store.set(KEY(id), JSON.stringify(stored), FILE_TTL_MS);
    const body = `${id}.${expires}`;
    return `${options.publicUrl}/files/${body}.${sign(body)}`;
  }

  /** The file's id and expiry of a token that is signed and not expired. */
  function readToken(token: string): { id: string; expires: string } | undefined {
    const [id, expires, mac] = token.split(".");
    if (!id || !expires || !mac) return undefined;
    const expected = Buffer.from(sign(`${id}.${expires}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return Number.parseInt(expires, 36) > now() ? { id, expires } : undefined;
  }

  /** Removes the files on disk whose links have expired; answers how many. */
  async function sweep(): Promise<number> {
    const names = await readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const expires = DISK_NAME.exec(name)?.[1];
      if (expires === undefined || Number.parseInt(expires, 36) > now()) continue;
      await rm(join(dir, name), { force: true });
      removed += 1;
    }
    return removed;
  }

  const route: HttpRoute = {
    method: "GET",
    path: "/files/:token",
    async handler(_req, res, params) {
      const token = readToken(params.token ?? "");
      const raw = token === undefined ? null : await options.store.get(KEY(token.id));
      if (token === undefined || raw === null) return sendText(res, 404, "not found");
      const file = JSON.parse(raw) as StoredFile;
      const headers = {
        "content-type": file.contentType,
        "content-disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
        "cache-control": "private, no-store",
      };
      if (file.base64 !== undefined) {
        const bytes = Buffer.from(file.base64, "base64");
        res.writeHead(200, { ...headers, "content-length": bytes.length });
        res.end(bytes);
        return;
      }
      const path = diskPath(token.id, token.expires);
      const size = await stat(path).then(
        (s) => s.size,
        () => undefined,
      );
      // Another instance's file, or swept: gone as an expired link is.
      if (size === undefined) return sendText(res, 404, "not found");
      res.writeHead(200, { ...headers, "content-length": size });
      // A download cut short closes the file; nothing else to do.
      await pipeline(createReadStream(path), res).catch(() => res.destroy());
    },
  };
  return { link, route, sweep };
}
