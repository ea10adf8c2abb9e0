import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A real `node:http` receiver for the sandbox's webhooks and Host Mode callbacks (tests only). */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Status to answer the n-th request (0-based); a `hangMs` delays the answer (timeouts). */
export type Responder = (req: ReceivedRequest, n: number) => number | { status: number; hangMs?: number };

export async function startReceiver(responder: Responder = () => 200) {
  const received: ReceivedRequest[] = [];
  let respond = responder;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://receiver");
    const entry: ReceivedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    received.push(entry);
    const answer = respond(entry, received.length - 1);
    const { status, hangMs } = typeof answer === "number" ? { status: answer, hangMs: 0 } : answer;
    if (hangMs) await new Promise((r) => setTimeout(r, hangMs));
    if (res.destroyed) return;
    res.writeHead(status, status >= 300 && status < 400 ? { location: "https://elsewhere.test/" } : {});
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    setResponder(next: Responder) {
      respond = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
