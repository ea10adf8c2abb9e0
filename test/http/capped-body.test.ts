import { createServer, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { downloadCapped } from "../../src/http/capped-body.js";

/**
 * A platform's file download read with a cap, against a real HTTP server: a body of unknown size
 * (chunked, no Content-Length) that never ends is cut off just past the cap and its connection
 * closed; a declared size over the cap is refused before its body is read.
 */
const CAP = 64 * 1024;
const CHUNK = 16 * 1024;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Writes chunks until the client goes away; resolves `closedEarly` then. */
function endless(res: ServerResponse, seen: { closedEarly?: boolean }): void {
  res.writeHead(200, { "content-type": "text/csv" });
  res.on("close", () => {
    seen.closedEarly = !res.writableFinished;
  });
  const write = () => {
    while (!res.destroyed && res.write(Buffer.alloc(CHUNK, 0x41)));
    if (!res.destroyed) res.once("drain", write);
  };
  write();
}

async function serve(handle: (path: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => handle(req.url ?? "/", res));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

describe("downloadCapped", () => {
  it("cuts off a body of unknown size that never ends just past the cap, and closes its connection", async () => {
    const seen: { closedEarly?: boolean } = {};
    const url = await serve((_, res) => endless(res, seen));
    const got = await downloadCapped(`${url}/file`, { maxBytes: CAP, timeoutMs: 10_000 });
    expect(got).toEqual({ tooLarge: true, sizeBytes: expect.any(Number) });
    const size = "sizeBytes" in got ? got.sizeBytes : 0;
    expect(size).toBeGreaterThan(CAP);
    // One read past the cap at most (the HTTP client reads in pieces of its own, up to 64 KB).
    expect(size).toBeLessThanOrEqual(CAP + 64 * 1024);
    await expect.poll(() => seen.closedEarly).toBe(true);
  });

  it("refuses a declared Content-Length over the cap without reading it; reads a body within it whole", async () => {
    const url = await serve((path, res) => {
      if (path === "/big") {
        res.writeHead(200, { "content-length": String(CAP + 1) });
        res.write(Buffer.alloc(CHUNK, 0x41)); // and never the rest: only the header may decide
        return;
      }
      if (path === "/gone") return void res.writeHead(404).end("not found");
      res.writeHead(200);
      res.write("address\n");
      res.end("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n");
    });
    expect(await downloadCapped(`${url}/big`, { maxBytes: CAP, timeoutMs: 10_000 })).toEqual({
      tooLarge: true,
      sizeBytes: CAP + 1,
    });
    const small = await downloadCapped(`${url}/small`, { maxBytes: CAP, timeoutMs: 10_000 });
    expect("bytes" in small && new TextDecoder().decode(small.bytes)).toBe(
      "address\nTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\n",
    );
    expect(await downloadCapped(`${url}/gone`, { maxBytes: CAP, timeoutMs: 10_000 })).toEqual({
      unreadable: "download answered HTTP 404",
    });
  });
});
