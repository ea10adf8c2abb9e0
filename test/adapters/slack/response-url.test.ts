import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createResponseUrls } from "../../../adapters/slack/response-url.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A real server on a free port that records every request and answers with `answer`. */
async function serve(answer: (req: IncomingMessage) => { status: number; headers?: Record<string, string> }) {
  const seen: { method: string; url: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "" });
    req.resume();
    const { status, headers } = answer(req);
    res.writeHead(status, headers).end(status === 200 ? "ok" : "");
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("response_url posts", () => {
  it("posts to an allowed origin", async () => {
    const slack = await serve(() => ({ status: 200 }));
    const responses = createResponseUrls({ slackApiUrl: `${slack.origin}/api/` });
    await responses.post(`${slack.origin}/commands/T0/1/x`, { text: "hi" });
    expect(slack.seen).toEqual([{ method: "POST", url: "/commands/T0/1/x" }]);
  });

  it("never follow a redirect to an origin that is not allowed", async () => {
    const elsewhere = await serve(() => ({ status: 200 }));
    const slack = await serve(() => ({ status: 307, headers: { location: `${elsewhere.origin}/steal` } }));
    const responses = createResponseUrls({ slackApiUrl: `${slack.origin}/api/` });
    expect(responses.allows(`${elsewhere.origin}/steal`)).toBe(false);
    await expect(responses.post(`${slack.origin}/commands/T0/1/x`, { text: "secret" })).rejects.toThrow();
    expect(slack.seen).toHaveLength(1);
    expect(elsewhere.seen).toEqual([]);
  });
});
