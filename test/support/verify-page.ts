import { Agent as HttpAgent, get as httpGet } from "node:http";
import { FormData, fetch as undiciFetch } from "undici";
import type { App } from "../../src/app.js";
import { screeningFound } from "../../src/core/cases/evidence.js";
import type { CoreDeps } from "../../src/core/deps.js";
import { issueAuditCode } from "../../src/core/verification/audit-code.js";
import type { ScreeningOrder } from "../../src/service/screening.js";
import { type MadeExport, makeExport } from "./audit-export.js";

/**
 * What the `/verify` tests check: a certificate made by the running bot (a screening on record,
 * then the `certificate` command, as a person would ask it) and an audit export with its code
 * (made as the contract fixes it, its code issued by the bot's own key), and requests to the page
 * from a chosen loopback address (the page limits each address on its own).
 */
export const CERT_ADDRESS = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
const CERT_CODE = /OPS-CERT-[A-Z2-7]{10}-[A-Z2-7]{26}/;

function lowRiskScreening(address: string): ScreeningOrder {
  return {
    schema_version: 2,
    order: {
      client_order_id: "A00000000000042",
      status: "completed",
      api_version: "2",
      cache_hit: false,
      created_at: "2026-11-01T00:00:00Z",
      started_at: null,
      completed_at: "2026-11-01T00:00:05Z",
    },
    request: { address, network: "trx", provider: "provider_a" },
    check: {
      provider: "provider_a",
      provider_check_id: null,
      checked_at: "2026-11-01T00:00:05Z",
      status: "completed",
      provider_status: null,
    },
    risk: {
      score: "1.2",
      scale: { min: 0, max: 10 },
      level: "low",
      level_source: "computed",
      provider_level: null,
      policy: "service-risk-v1",
      by_direction: { source: null, destination: null },
    },
    sanctions: { self: false, self_entities: [], exposure: {}, items: [], related: [] },
    exposure: [],
    rawSha256: "e".repeat(64),
  } as unknown as ScreeningOrder;
}

/** A certificate of `CERT_ADDRESS` as the bot makes it for an operator: its code and its PDF. */
export async function botCertificate(
  app: App,
  operatorId: string,
): Promise<{ code: string; pdf: Uint8Array }> {
  await screeningFound(app.deps, lowRiskScreening(CERT_ADDRESS), { askedBy: "olga" });
  const reply = await app.core.handle({
    kind: "command",
    actor: { platform: "slack", userId: operatorId },
    conversation: { platform: "slack", id: "C0OPS" },
    text: `certificate ${CERT_ADDRESS}`,
  });
  const file = reply.blocks.find((b) => b.type === "file");
  const code = CERT_CODE.exec(reply.summary)?.[0];
  if (!code || file?.type !== "file") throw new Error(`no certificate: ${reply.summary}`);
  return { code, pdf: file.file.bytes ?? new Uint8Array() };
}

/** An export of `rows` rows of 2026-11-02 and its code, issued with the bot's key. */
export async function genuineExport(
  deps: Pick<CoreDeps, "store" | "settings">,
  rows: number,
): Promise<{ made: MadeExport; code: string }> {
  const made = makeExport(rows, { firstSeq: 301, prevHash: "7".repeat(64) });
  const code = await issueAuditCode(deps, {
    v: 1,
    from: "2026-11-02",
    to: "2026-11-02",
    rows: made.rows,
    firstSeq: made.firstSeq,
    lastSeq: made.lastSeq,
    lastHash: made.lastHash,
    issuedAt: "2026-11-03T09:00:00.000Z",
  });
  return { made, code };
}

/** Keep-alive connections from `localAddress` (any of 127.0.0.0/8 on Linux): one client address of the page's limit. */
const agents = new Map<string, HttpAgent>();
function from(localAddress: string): HttpAgent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new HttpAgent({ keepAlive: true, localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}

export interface PageAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** A GET from `localAddress` (node:http: undici's fetch does not bind a local address). */
export function getPage(url: string, localAddress = "127.0.0.1"): Promise<PageAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: from(localAddress) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === "string") headers.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

export async function postPage(
  url: string,
  form: { code?: string; file?: { name: string; type: string; bytes: Uint8Array | string } },
): Promise<PageAnswer> {
  const data = new FormData();
  if (form.code !== undefined) data.append("code", form.code);
  if (form.file)
    data.append("file", new Blob([Buffer.from(form.file.bytes)], { type: form.file.type }), form.file.name);
  const response = await undiciFetch(url, { method: "POST", body: data });
  return {
    status: response.status,
    headers: response.headers as unknown as Headers,
    body: await response.text(),
  };
}

/** A raw POST: any content type, any body. */
export async function postRaw(
  url: string,
  contentType: string,
  body: string | Uint8Array,
): Promise<PageAnswer> {
  const response = await undiciFetch(url, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  return {
    status: response.status,
    headers: response.headers as unknown as Headers,
    body: await response.text(),
  };
}

/** The page's text without its markup (what a person reads). */
export const visibleText = (body: string): string =>
  body
    .replace(/<style>[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
