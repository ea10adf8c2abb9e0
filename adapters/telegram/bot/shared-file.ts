import type { Api } from "grammy";
import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../../../src/core/index.js";

/**
 * A document sent with a command as its caption (`/energy` + a CSV), read the way the Bot API
 * allows: `getFile` for its path, then `<api root>/file/bot<token>/<file_path>`. At most
 * SHARED_FILE_MAX_BYTES are downloaded (Telegram gives the size up front); anything that goes
 * wrong arrives as an unreadable file saying why. The URL holds the token: it is never logged.
 */
const FILE_DOWNLOAD_TIMEOUT_MS = 15_000;
const TELEGRAM_API_ROOT = "https://api.telegram.org";

export interface TelegramDocument {
  file_id: string;
  file_name?: string;
  mime_type?: string;
  file_size?: number;
}

export function createFileReader(api: Api, botToken: string, apiRoot = TELEGRAM_API_ROOT) {
  return async function readDocument(document: TelegramDocument): Promise<SharedFile> {
    const base = {
      name: document.file_name ?? "file",
      sizeBytes: document.file_size ?? 0,
      ...(document.mime_type && { mimeType: document.mime_type }),
    };
    if (base.sizeBytes > SHARED_FILE_MAX_BYTES) return base;
    let path: string | undefined;
    try {
      path = (await api.getFile(document.file_id)).file_path;
    } catch {
      return { ...base, unreadable: "Telegram did not give the file" };
    }
    if (path === undefined) return { ...base, unreadable: "Telegram gave no file path" };
    try {
      const response = await fetch(`${apiRoot.replace(/\/$/, "")}/file/bot${botToken}/${path}`, {
        signal: AbortSignal.timeout(FILE_DOWNLOAD_TIMEOUT_MS),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return { ...base, unreadable: `download answered HTTP ${response.status}` };
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.byteLength > SHARED_FILE_MAX_BYTES) return { ...base, sizeBytes: bytes.byteLength };
      return { ...base, sizeBytes: bytes.byteLength, bytes };
    } catch {
      return { ...base, unreadable: "the download failed" };
    }
  };
}
