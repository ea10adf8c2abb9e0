import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/**
 * The Microsoft side of Teams for the tests, over https (the test CA of tls-global-setup.ts):
 * - the Bot Framework channel's OpenID metadata (`/openid`) and key set (`/keys`): a key endorsed
 *   for `msteams`, one endorsed only for `webchat`; the test signs activities' tokens with them
 *   (`sign`), or with a key nobody published under a known key id (a forgery);
 * - the bot's token endpoint (`/<tenant>/oauth2/v2.0/token`, client credentials);
 * - the Bot Connector under `/amer/` (a serviceUrl with its own path): it records every activity
 *   posted (`POST /v3/conversations/{id}/activities[/{replyTo}]`) or edited (`PUT …/{id}`).
 * Every request is counted (`requests`), so a test can say nothing was sent anywhere.
 */
const ISSUER = "https://api.botframework.com";
export const TENANT = "5f1e2d3c-0000-4000-8000-00000000a11c";
export const APP_ID = "0b0f1e2d-0000-4000-8000-0000000b0701";

interface ConnectorCall {
  method: string;
  conversationId: string;
  /** The activity replied to (`POST …/activities/{id}`) or edited (`PUT`). */
  activityId?: string;
  body: Record<string, unknown>;
  authorization?: string;
  /** The id the connector gave the posted activity. */
  id: string;
  /** When it arrived (`performance.now()` of this process). */
  at: number;
}

interface SignOptions {
  key?: "endorsed" | "webchat-only" | "forged";
  audience?: string;
  issuer?: string;
  serviceUrl?: string;
  /** Seconds from now (negative: expired). */
  expiresIn?: number;
}

export interface FakeMicrosoft {
  url: string;
  openIdUrl: string;
  loginUrl: string;
  /** The connector as activities name it, with its own path. */
  serviceUrl: string;
  requests: { method: string; path: string }[];
  activities: ConnectorCall[];
  tokenRequests: number;
  /** The next `count` connector posts are answered 429 with this Retry-After (seconds). */
  throttleNext(count: number, retryAfterSeconds: number): void;
  sign(options?: SignOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeMicrosoft(): Promise<FakeMicrosoft> {
  const dir = process.env.OPSBOT_TEST_TLS_DIR;
  if (!dir) throw new Error("no test TLS (test/support/tls-global-setup.ts)");
  const endorsed = await generateKeyPair("RS256", { extractable: true });
  const webchat = await generateKeyPair("RS256", { extractable: true });
  const forged = await generateKeyPair("RS256", { extractable: true });
  const publish = async (
    key: Parameters<typeof exportJWK>[0],
    kid: string,
    endorsements: string[],
  ): Promise<JWK & { endorsements: string[] }> => ({
    ...(await exportJWK(key)),
    kid,
    use: "sig",
    endorsements,
  });
  const keys = [
    await publish(endorsed.publicKey, "key-msteams", ["msteams", "webchat"]),
    await publish(webchat.publicKey, "key-webchat", ["webchat"]),
  ];
  let throttle = { count: 0, retryAfter: 0 };
  const fake = {
    requests: [] as FakeMicrosoft["requests"],
    activities: [] as ConnectorCall[],
    tokenRequests: 0,
  };
  let next = 0;

  const server: Server = createServer(
    { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.crt")) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const path = (req.url ?? "").split("?")[0] ?? "";
        const method = req.method ?? "GET";
        fake.requests.push({ method, path });
        const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { "content-type": "application/json", ...headers });
          res.end(JSON.stringify(body));
        };
        if (method === "GET" && path === "/openid")
          return send(200, { issuer: ISSUER, jwks_uri: `${base}/keys` });
        if (method === "GET" && path === "/keys") return send(200, { keys });
        if (method === "POST" && path === `/${TENANT}/oauth2/v2.0/token`) {
          fake.tokenRequests += 1;
          return send(200, {
            token_type: "Bearer",
            expires_in: 3600,
            ext_expires_in: 3600,
            access_token: "fake-bot-token",
          });
        }
        const match = /^\/amer\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(path);
        if (match && (method === "POST" || method === "PUT")) {
          if (throttle.count > 0) {
            throttle.count -= 1;
            return send(
              429,
              { error: { code: "throttled" } },
              { "retry-after": String(throttle.retryAfter) },
            );
          }
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
          const conversationId = decodeURIComponent(match[1] ?? "");
          const activityId = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
          next += 1;
          const id = method === "PUT" ? (activityId ?? "") : `msg-${next}`;
          fake.activities.push({
            id,
            at: performance.now(),
            method,
            conversationId,
            ...(activityId !== undefined && { activityId }),
            body,
            ...(req.headers.authorization && { authorization: req.headers.authorization }),
          });
          return send(200, { id });
        }
        send(404, { error: "not found" });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    openIdUrl: `${base}/openid`,
    loginUrl: `${base}/${TENANT}`,
    serviceUrl: `${base}/amer/`,
    get requests() {
      return fake.requests;
    },
    get activities() {
      return fake.activities;
    },
    get tokenRequests() {
      return fake.tokenRequests;
    },
    throttleNext(count, retryAfterSeconds) {
      throttle = { count, retryAfter: retryAfterSeconds };
    },
    async sign(options = {}) {
      const which = options.key ?? "endorsed";
      const [privateKey, kid] =
        which === "webchat-only"
          ? [webchat.privateKey, "key-webchat"]
          : which === "forged"
            ? [forged.privateKey, "key-msteams"]
            : [endorsed.privateKey, "key-msteams"];
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        serviceurl: options.serviceUrl ?? `${base}/amer/`,
        appid: "bot-framework-channel",
      })
        .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
        .setIssuer(options.issuer ?? ISSUER)
        .setAudience(options.audience ?? APP_ID)
        .setIssuedAt(now - 60)
        .setNotBefore(now - 60)
        .setExpirationTime(now + (options.expiresIn ?? 600))
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
