import type { IncomingMessage, ServerResponse } from "node:http";

/** Request and answer plumbing of the fake Slack Web API. */
export type Params = Record<string, unknown>;
export type Answer = { status: number; body: unknown; headers?: Record<string, string> };

const JSON_FIELDS = ["blocks", "view", "files", "attachments"];

export function parseParams(raw: Buffer, contentType: string | undefined): Params {
  const text = raw.toString("utf8");
  if (text === "") return {};
  if ((contentType ?? "").includes("application/json")) return JSON.parse(text) as Params;
  const params: Params = Object.fromEntries(new URLSearchParams(text));
  for (const field of JSON_FIELDS) {
    if (typeof params[field] === "string") params[field] = JSON.parse(params[field] as string);
  }
  return params;
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function send(res: ServerResponse, answer: Answer): void {
  if (Buffer.isBuffer(answer.body)) {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
    return;
  }
  const json = typeof answer.body !== "string";
  res.writeHead(answer.status, {
    "content-type": json ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
    ...answer.headers,
  });
  res.end(json ? JSON.stringify(answer.body) : answer.body);
}
