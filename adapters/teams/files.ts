import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { createReadStream } from "node:fs";
import type { ServerResponse } from "node:http";
import type { FileAttachment } from "../../src/core/index.js";
import type { HttpRoute } from "../../src/http/server.js";
import { sendText } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";

/**
 * Files for Teams (certificates, exports, payout outcomes) as download links:
 * `<PUBLIC_URL>/files/<token>`. The token names the file, carries its expiry and is signed
 * (HMAC-SHA256 under a key derived from the bot's secret), so a wrong, altered or expired token is
 * a 404. Every file waits in the shared store for a day, so any instance serves any link, in
 * pieces of FILE_CHUNK_BYTES: a file on disk (an audit export) is read a piece at a time into the
 * store and streamed back a piece at a time, so memory stays flat whatever its size. The pieces
 * are written before the record that names them: a link never finds half a file.
 */
const FILE_TTL_MS = 24 * 3_600_000;
export const FILE_CHUNK_BYTES = 256 * 1024;
const KEY = (id: string) => `teams:file:${id}`;
const CHUNK_KEY = (id: string, index: number) => `teams:file:${id}:${index}`;

interface StoredFile {
  filename: string;
  contentType: string;
  sizeBytes: number;
  chunks: number;
}

export interface FileLinkOptions {
  store: Store;
  secret: string;
  publicUrl: string;
  now?: () => number;
}

/** The file's pieces, FILE_CHUNK_BYTES each (the last one shorter), read from disk one at a time. */
async function* piecesOf(file: FileAttachment): AsyncGenerator<Buffer> {
  if (file.bytes !== undefined) {
    const bytes = Buffer.from(file.bytes);
    for (let at = 0; at < bytes.length; at += FILE_CHUNK_BYTES)
      yield bytes.subarray(at, at + FILE_CHUNK_BYTES);
    return;
  }
  yield* createReadStream(file.path, { highWaterMark: FILE_CHUNK_BYTES }) as AsyncIterable<Buffer>;
}

/** Writes one piece, waiting when the connection's buffer is full (a slow download holds no more). */
async function writePiece(res: ServerResponse, piece: Buffer): Promise<void> {
  if (!res.write(piece)) await once(res, "drain");
}

export function createFileLinks(options: FileLinkOptions) {
  const now = options.now ?? Date.now;
  const key = Buffer.from(hkdfSync("sha256", options.secret, "opsbot", "opsbot.teams.files.v1", 32));
  const sign = (text: string) => createHmac("sha256", key).update(text).digest("base64url");

  async function link(file: FileAttachment): Promise<string> {
    const id = randomBytes(16).toString("base64url");
    const expires = (now() + FILE_TTL_MS).toString(36);
    let chunks = 0;
    let sizeBytes = 0;
    for await (const piece of piecesOf(file)) {
      await options.store.set(CHUNK_KEY(id, chunks), piece.toString("base64"), FILE_TTL_MS);
      chunks += 1;
      sizeBytes += piece.length;
    }
    const stored: StoredFile = { filename: file.filename, contentType: file.contentType, sizeBytes, chunks };
    await options.store.set(KEY(id), JSON.stringify(stored), FILE_TTL_MS);
    const body = `${id}.${expires}`;
    return `${options.publicUrl}/files/${body}.${sign(body)}`;
  }

  /** The file's id of a token that is signed and not expired. */
  function readToken(token: string): string | undefined {
    const [id, expires, mac] = token.split(".");
    if (!id || !expires || !mac) return undefined;
    const expected = Buffer.from(sign(`${id}.${expires}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return Number.parseInt(expires, 36) > now() ? id : undefined;
  }

  const route: HttpRoute = {
    method: "GET",
    path: "/files/:token",
    async handler(_req, res, params) {
      const id = readToken(params.token ?? "");
      const raw = id === undefined ? null : await options.store.get(KEY(id));
      if (id === undefined || raw === null) return sendText(res, 404, "not found");
      const file = JSON.parse(raw) as StoredFile;
      const first = file.chunks > 0 ? await options.store.get(CHUNK_KEY(id, 0)) : "";
      // Expired between the record and its pieces: gone as an expired link is.
      if (first === null) return sendText(res, 404, "not found");
      res.writeHead(200, {
        "content-type": file.contentType,
        "content-disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
        "content-length": file.sizeBytes,
        "cache-control": "private, no-store",
      });
      try {
        await writePiece(res, Buffer.from(first, "base64"));
        for (let index = 1; index < file.chunks && !res.destroyed; index += 1) {
          const piece = await options.store.get(CHUNK_KEY(id, index));
          if (piece === null) throw new Error("a piece of the file expired while it was sent");
          await writePiece(res, Buffer.from(piece, "base64"));
        }
        res.end();
      } catch {
        // A download cut short, or a piece gone: the client sees the cut (fewer bytes than said).
        res.destroy();
      }
    },
  };
  return { link, route };
}
