import { withDeadline } from "../clock.js";

/**
 * A downloaded body read with a cap: a declared Content-Length over the cap is refused before a
 * byte is read, and a body of unknown (or understated) size is read as a stream and cancelled as
 * soon as it passes the cap. So a file the platform did not size up front can never be held whole
 * in memory. `sizeBytes` of a body over the cap is what was declared or read when it stopped.
 */
type CappedBody = { bytes: Uint8Array } | { tooLarge: true; sizeBytes: number };

async function readBodyCapped(response: Response, maxBytes: number): Promise<CappedBody> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return { tooLarge: true, sizeBytes: declared };
  }
  if (response.body === null) return { bytes: new Uint8Array(0) };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { tooLarge: true, sizeBytes: size };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes };
}

/** A file fetched with `readBodyCapped`, or why it could not be (one phrase for a person). */
type CappedDownload = CappedBody | { unreadable: string };

/**
 * GET a platform's file URL within `timeoutMs`, its body read with `readBodyCapped`. Never throws:
 * a status other than 200 or a failed transfer arrives as `unreadable`. The URL may hold a token
 * (Telegram): it is never put into what this answers.
 */
export async function downloadCapped(
  url: string,
  options: { maxBytes: number; timeoutMs: number; headers?: Record<string, string> },
): Promise<CappedDownload> {
  try {
    return await withDeadline(options.timeoutMs, async (signal) => {
      const response = await fetch(url, { ...(options.headers && { headers: options.headers }), signal });
      if (response.status !== 200) {
        await response.body?.cancel();
        return { unreadable: `download answered HTTP ${response.status}` };
      }
      return await readBodyCapped(response, options.maxBytes);
    });
  } catch {
    return { unreadable: "the download failed" };
  }
}
