import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { FileAttachment } from "../../src/core/index.js";
import type { HttpRoute } from "../../src/http/server.js";
import { sendText } from "../../src/http/server.js";
import type { Store } from "../../src/store/store.js";

/**
 * Files for Teams (certificates, exports, payout outcomes) as download links:
 * `<PUBLIC_URL>/files/<token>`. The file waits in the shared store for a day; the token names it,
 * carries its expiry and is signed (HMAC-SHA256 under a key derived from the bot's secret), so a
 * wrong, altered or expired token is a 404, on any instance.
 */
const FILE_TTL_MS = 24 * 3_600_000;
const KEY = (id: string) => `teams:file:${id}`;

interface StoredFile {
  filename: string;
  contentType: string;
  base64: string;
}

export function createFileLinks(options: {
  store: Store;
  secret: string;
  publicUrl: string;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const key = Buffer.from(hkdfSync("sha256", options.secret, "opsbot", "opsbot.teams.files.v1", 32));
  const sign = (text: string) => createHmac("sha256", key).update(text).digest("base64url");

  async function link(file: FileAttachment): Promise<string> {
    const id = randomBytes(16).toString("base64url");
    // A file written to disk (an audit export) is read here: the link serves it from the store.
    const bytes = file.bytes ?? (await readFile(file.path));
    const expires = now() + FILE_TTL_MS;
    const stored: StoredFile = {
      filename: file.filename,
      contentType: file.contentType,
      base64: Buffer.from(bytes).toString("base64"),
    };
    await options.store.set(KEY(id), JSON.stringify(stored), FILE_TTL_MS);
    const body = `${id}.${expires.toString(36)}`;
    return `${options.publicUrl}/files/${body}.${sign(body)}`;
  }

  function idOf(token: string): string | undefined {
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
      const id = idOf(params.token ?? "");
      const raw = id === undefined ? null : await options.store.get(KEY(id));
      if (raw === null) return sendText(res, 404, "not found");
      const file = JSON.parse(raw) as StoredFile;
      const bytes = Buffer.from(file.base64, "base64");
      res.writeHead(200, {
        "content-type": file.contentType,
        "content-length": bytes.length,
        "content-disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
        "cache-control": "private, no-store",
      });
      res.end(bytes);
    },
  };
  return { link, route };
}
