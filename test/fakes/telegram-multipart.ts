/** One uploaded file of a multipart request. */
export interface UploadedFile {
  field: string;
  filename: string;
  bytes: Buffer;
}

export interface ParsedBody {
  params: Record<string, unknown>;
  files: UploadedFile[];
}

/**
 * Reads a Bot API request body the way Telegram does: JSON, or multipart/form-data where each
 * field is a string (objects JSON-encoded) and files are referenced as `attach://<field>`.
 * Hand-written because grammY writes `filename=` unquoted, which general parsers reject.
 */
export function parseBotApiBody(contentType: string, raw: Buffer): ParsedBody {
  if (raw.length === 0) return { params: {}, files: [] };
  const boundary = /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
  if (!contentType.startsWith("multipart/form-data") || !boundary) {
    return { params: JSON.parse(raw.toString("utf8")) as Record<string, unknown>, files: [] };
  }
  const params: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  for (const part of splitParts(raw, boundary)) {
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd === -1) continue;
    const headers = part.subarray(0, headerEnd).toString("utf8");
    const body = part.subarray(headerEnd + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) continue;
    const filename = /filename=("?)([^"\r\n;]*)\1/i.exec(headers)?.[2];
    if (filename !== undefined) files.push({ field: name, filename, bytes: Buffer.from(body) });
    else params[name] = decodeField(body.toString("utf8"));
  }
  return { params, files };
}

function splitParts(raw: Buffer, boundary: string): Buffer[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let start = raw.indexOf(delimiter);
  while (start !== -1) {
    const from = start + delimiter.length;
    if (raw.subarray(from, from + 2).toString() === "--") break;
    const next = raw.indexOf(delimiter, from);
    if (next === -1) break;
    // Each part sits between "\r\n" after the delimiter line and "\r\n" before the next one.
    parts.push(raw.subarray(from + 2, next - 2));
    start = next;
  }
  return parts;
}

function decodeField(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
