import { SHARED_FILE_MAX_BYTES, type SharedFile } from "../../src/core/index.js";
import { downloadCapped } from "../../src/http/capped-body.js";
import { isSlackApiError } from "./errors.js";
import type { SlackWeb } from "./web.js";

/**
 * A file shared with a command in a channel (a `message` event of subtype `file_share`), read the
 * way Slack allows: `files.info` for its name, type, size and `url_private`, then that URL with
 * the bot token as a bearer (scope `files:read`). At most SHARED_FILE_MAX_BYTES are downloaded
 * (a larger size in `files.info` is not downloaded at all, a larger body is cut off as it streams);
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
  // The URL comes from the authenticated Web API answer, so the token goes only where Slack said.
  const got = await downloadCapped(info.urlPrivate, {
    headers: { authorization: `Bearer ${botToken}` },
    maxBytes: SHARED_FILE_MAX_BYTES,
    timeoutMs: FILE_DOWNLOAD_TIMEOUT_MS,
  });
  if ("unreadable" in got) return { ...base, unreadable: got.unreadable };
  if ("tooLarge" in got) return { ...base, sizeBytes: got.sizeBytes };
  return { ...base, sizeBytes: got.bytes.byteLength, bytes: got.bytes };
}
