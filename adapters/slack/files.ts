import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { withDeadline } from "../../src/clock.js";
import { type FileAttachment, fileSize } from "../../src/core/index.js";
import { SlackApiError } from "./errors.js";
import type { SlackUpload } from "./render/blocks.js";
import { plainText } from "./render/mrkdwn.js";
import type { SlackWeb } from "./web.js";

/**
 * Files go up the way Slack requires since `files.upload` was retired: ask for an upload URL
 * (`files.getUploadURLExternal`), send the bytes there, then share every file of the reply into
 * the conversation at once (`files.completeUploadExternal`). The upload URL comes from the
 * authenticated Web API answer, so it is trusted as given.
 */
const FILE_UPLOAD_TIMEOUT_MS = 30_000;
/** Slack's limit on an image's `alt_txt`. */
const ALT_TEXT_MAX = 1000;

export interface ShareOptions {
  threadTs?: string;
  /** Escaped mrkdwn posted with the files (used when the reply has nothing but files). */
  initialComment?: string;
}

/** Uploads `files` and shares them into `channel`; returns the Slack file ids. */
export async function shareFiles(
  web: SlackWeb,
  channel: string,
  files: readonly SlackUpload[],
  options: ShareOptions = {},
): Promise<string[]> {
  if (files.length === 0) return [];
  const uploaded: { id: string; title: string }[] = [];
  for (const file of files) {
    const name = safeFilename(file.filename);
    const alt = file.altText === undefined ? undefined : plainText(file.altText).slice(0, ALT_TEXT_MAX);
    const target = await web.getUploadUrl(name, fileSize(file), alt);
    await sendBytes(target.uploadUrl, file);
    uploaded.push({ id: target.fileId, title: plainText(file.title ?? name) || name });
  }
  await web.completeUpload(uploaded, channel, options);
  return uploaded.map((f) => f.id);
}

async function sendBytes(url: string, file: FileAttachment): Promise<void> {
  let status: number;
  try {
    status = await withDeadline(FILE_UPLOAD_TIMEOUT_MS, async (signal) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": file.contentType || "application/octet-stream" },
        ...(file.bytes === undefined
          ? { body: Readable.toWeb(createReadStream(file.path)) as ReadableStream, duplex: "half" as const }
          : { body: file.bytes }),
        signal,
      });
      await response.arrayBuffer();
      return response.status;
    });
  } catch (error) {
    const timedOut = (error as { name?: unknown }).name === "TimeoutError";
    throw new SlackApiError("file_upload", timedOut ? "timeout" : "network", { cause: error });
  }
  if (status !== 200) {
    // The URL is single-use and short-lived: a retry must start over with a new one, which the
    // notify queue does by calling the whole send again.
    throw new SlackApiError("file_upload", `http_${status}`, { retryable: status >= 500 || status === 429 });
  }
}

/** The base name only, without control characters; Slack shows it as the file's name. */
function safeFilename(name: string): string {
  const base = plainText(name).split(/[/\\]/).pop()?.trim() ?? "";
  return base === "" || base === "." || base === ".." ? "file" : base.slice(0, 255);
}
