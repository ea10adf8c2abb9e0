import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import busboy from "busboy";
import {
  type CodeVerdict,
  type CoreDeps,
  checkFileOfCode,
  type FileCheck,
  verifyAnyCode,
} from "../core/index.js";
import { MAX_FILE_MB } from "./page.js";

/**
 * `POST /verify` as `multipart/form-data` (fields `code` and `file`), read with busboy as it
 * streams: the code is checked as soon as it arrives, and the file that follows it flows straight
 * into its check (a hash, or the export's chain); nothing is held whole. A file over the limit
 * stops the check; a body far past it closes the connection.
 */
const MAX_FILE_BYTES = MAX_FILE_MB * 1_048_576;
/** Headers, the code field and the boundaries around a file of MAX_FILE_BYTES. */
const FORM_OVERHEAD_BYTES = 64 * 1_024;
/** Past this much of a body over the limit, reading stops and the connection is closed. */
const DRAIN_MAX_BYTES = 16 * 1_048_576;

export type FormAnswer =
  | { kind: "checked"; code: string; verdict: CodeVerdict; file?: FileCheck }
  | { kind: "malformed"; code?: string }
  | { kind: "too-large"; code?: string; cutConnection: boolean };

type Deps = Pick<CoreDeps, "store" | "settings">;

export function readVerifyForm(req: IncomingMessage, deps: Deps): Promise<FormAnswer> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > MAX_FILE_BYTES + FORM_OVERHEAD_BYTES + DRAIN_MAX_BYTES)
    return Promise.resolve({ kind: "too-large", cutConnection: true });
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fields: 4, fieldSize: 1_024, files: 1, fileSize: MAX_FILE_BYTES, parts: 6, headerPairs: 20 },
    });
  } catch {
    req.resume();
    return Promise.resolve({ kind: "malformed" });
  }
  return new Promise((resolve) => {
    let code: string | undefined;
    let verdict: Promise<CodeVerdict> | undefined;
    let fileCheck: Promise<FileCheck | undefined> | undefined;
    let fileTooLarge = false;
    let received = 0;
    let settled = false;
    const settle = (answer: FormAnswer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const cut = () => {
      req.unpipe(parser);
      req.destroy();
      settle({ kind: "too-large", ...(code !== undefined && { code }), cutConnection: true });
    };
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_FILE_BYTES + FORM_OVERHEAD_BYTES + DRAIN_MAX_BYTES) cut();
    });
    parser.on("field", (name, value) => {
      if (name !== "code" || code !== undefined) return;
      code = value;
      verdict = verifyAnyCode(deps, value);
    });
    parser.on("file", (name, stream, info) => {
      stream.on("limit", () => {
        fileTooLarge = true;
      });
      if (name !== "file" || fileCheck !== undefined || info.filename === "") {
        stream.resume();
        return;
      }
      fileCheck = checkWhenGenuine(deps, verdict, stream);
    });
    parser.on("error", () => {
      req.unpipe(parser);
      req.resume();
      settle({ kind: "malformed", ...(code !== undefined && { code }) });
    });
    parser.on("close", () => {
      void (async () => {
        if (fileTooLarge)
          return settle({ kind: "too-large", ...(code !== undefined && { code }), cutConnection: false });
        if (code === undefined || verdict === undefined) return settle({ kind: "malformed" });
        const file = await fileCheck;
        settle({ kind: "checked", code, verdict: await verdict, ...(file && { file }) });
      })().catch(() => settle({ kind: "malformed", ...(code !== undefined && { code }) }));
    });
    req.pipe(parser);
  });
}

/** The file's check once the code (sent before it) is known genuine; otherwise the file is only drained. */
async function checkWhenGenuine(
  deps: Deps,
  verdict: Promise<CodeVerdict> | undefined,
  stream: Readable,
): Promise<FileCheck | undefined> {
  try {
    const known = verdict && (await verdict);
    if (known === undefined)
      return {
        matches: false,
        line: "The file came before the code: put the code first and send them again.",
      };
    if (!known.genuine) return undefined;
    // Not destroyed when the check stops early: the rest is read and dropped below, so the form ends.
    const chunks = stream.iterator({ destroyOnReturn: false });
    const first = await chunks.next();
    // No file chosen: a browser still sends the part, empty.
    if (first.done) return undefined;
    return await checkFileOfCode(
      deps,
      known,
      (async function* () {
        yield first.value as Buffer;
        yield* chunks;
      })(),
    );
  } finally {
    // A check that stopped early (the first altered row) leaves the rest: read and dropped.
    for await (const _ of stream.iterator({ destroyOnReturn: false })) {
    }
  }
}
