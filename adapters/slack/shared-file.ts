import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../../src/core/index.js";
import { isSlackApiError } from "./errors.js";
import type { SlackWeb } from "./web.js";

/**
 * A file shared with a command in a channel (a `message` event of subtype `file_share`), read the
 * way Slack allows: `files.info` for its name, type, size and `url_private`, then that URL with
 * the bot token as a bearer (scope `files:read`). At most SHARED_FILE_MAX_BYTES are downloaded;
 * anything that goes wrong arrives as an unreadable file saying why, never as a throw.
 */
const FILE_DOWNLOAD_TIMEOUT_MS = 15_000;

export async function readSharedFile(web: SlackWeb, botToken: string, fileId: string): Promise<SharedFile> {
  let info: Awaited<ReturnType<SlackWeb["fileInfo"]>>;
  try {
    info = await web.fileInfo(fileId);
  } catch (error) {
    const code = isSlackApiError(error) ? error.code : "no answer";
    return { name: "file", sizeBytes: 0, unreadable: `Slack said ${code}` };
  }
  const base = { name: info.name, sizeBytes: info.size, ...(info.mimetype && { mimeType: info.mimetype }) };
  if (info.size > SHARED_FILE_MAX_BYTES) return base;
  if (info.urlPrivate === undefined) return { ...base, unreadable: "Slack gave no download address" };
  try {
    // The URL comes from the authenticated Web API answer, so the token goes only where Slack said.
    const response = await fetch(info.urlPrivate, {
      headers: { authorization: `Bearer ${botToken}` },
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
}
