import type { Api } from "grammy";
import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../../../src/core/index.js";
import { downloadCapped } from "../../../src/http/capped-body.js";

/**
 * A document sent with a command as its caption (`/energy` + a CSV), read the way the Bot API
 * allows: `getFile` for its path, then `<api root>/file/bot<token>/<file_path>`. At most
 * SHARED_FILE_MAX_BYTES are downloaded: a larger `file_size` (in the update or from `getFile`) is
 * not downloaded at all, and a body of unknown size is cut off as it streams past the cap. Anything
 * that goes wrong arrives as an unreadable file saying why. The URL holds the token: it is never logged.
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
    let file: Awaited<ReturnType<Api["getFile"]>>;
    try {
      file = await api.getFile(document.file_id);
    } catch {
      return { ...base, unreadable: "Telegram did not give the file" };
    }
    if (file.file_size !== undefined && file.file_size > SHARED_FILE_MAX_BYTES) {
      return { ...base, sizeBytes: file.file_size };
    }
    if (file.file_path === undefined) return { ...base, unreadable: "Telegram gave no file path" };
    const got = await downloadCapped(`${apiRoot.replace(/\/$/, "")}/file/bot${botToken}/${file.file_path}`, {
      maxBytes: SHARED_FILE_MAX_BYTES,
      timeoutMs: FILE_DOWNLOAD_TIMEOUT_MS,
    });
    if ("unreadable" in got) return { ...base, unreadable: got.unreadable };
    if ("tooLarge" in got) return { ...base, sizeBytes: got.sizeBytes };
    return { ...base, sizeBytes: got.bytes.byteLength, bytes: got.bytes };
  };
}
