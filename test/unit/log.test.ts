import { describe, expect, it } from "vitest";
import { createLogger, REDACTED, redactSecrets } from "../../src/log.js";
import { ServiceError } from "../../src/service/errors.js";

/** A logger whose lines are collected, parsed, instead of written to stdout. */
function capture(options: { level?: string; secrets?: string[] } = {}) {
  const raw: string[] = [];
  const logger = createLogger({
    level: options.level ?? "info",
    secrets: options.secrets,
    destination: { write: (line: string) => raw.push(line) },
  });
  const lines = () => raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, raw, lines, text: () => raw.join("") };
}

const TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1";
const HOST_TOKEN = "hosttoken_abcdefghijkl";

describe("createLogger", () => {
  it("writes JSON lines at and above its level", () => {
    const { logger, lines } = capture({ level: "warn" });
    logger.info("quiet");
    logger.warn({ orderId: "o-1" }, "loud");
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 40, msg: "loud", orderId: "o-1" });
  });

  it("redacts secret fields by name, at the top and one level down", () => {
    const { logger, lines, text } = capture();
    logger.info(
      {
        apiKey: "AK-top",
        service: { apiKey: "AK-nested", baseUrl: "https://api.example.com" },
        slack: { signingSecret: "SS-1", botToken: "BT-1" },
        telegram: { webhookSecret: "WS-1" },
        delivery: { signature: "sha256=deadbeef", delivery_id: "d-1" },
        headers: {
          "x-api-key": "AK-header",
          authorization: "Bearer AUTH-1",
          "content-type": "application/json",
        },
        upstream: {
          headers: { "x-service-signature": "sha256=feed", "x-telegram-bot-api-secret-token": "TG-1" },
        },
      },
      "configured",
    );
    for (const secret of [
      "AK-top",
      "AK-nested",
      "SS-1",
      "BT-1",
      "WS-1",
      "deadbeef",
      "AK-header",
      "AUTH-1",
      "feed",
      "TG-1",
    ]) {
      expect(text()).not.toContain(secret);
    }
    const line = lines()[0]!;
    expect(line.apiKey).toBe(REDACTED);
    expect(line.service).toEqual({ apiKey: REDACTED, baseUrl: "https://api.example.com" });
    expect(line.delivery).toEqual({ signature: REDACTED, delivery_id: "d-1" });
    expect(line.headers).toEqual({
      "x-api-key": REDACTED,
      authorization: REDACTED,
      "content-type": "application/json",
    });
  });

  it("scrubs configured secret values wherever they appear, even JSON-escaped", () => {
    const secrets = ["plain-service-key-1", 'quote"back\\slash'];
    const { logger, text } = capture({ secrets });
    logger.info({ note: `the key is plain-service-key-1 and ${secrets[1]}` }, "sent plain-service-key-1");
    logger.error(new Error("401 for key plain-service-key-1"), "failed");
    expect(text()).not.toContain("plain-service-key-1");
    expect(text()).not.toContain("back\\\\slash");
    expect(text()).toContain(REDACTED);
  });

  it("scrubs secrets it was never told about by their shape", () => {
    const { logger, text } = capture();
    logger.warn(`GET https://api.telegram.org/bot${TELEGRAM_TOKEN}/getMe failed`);
    logger.info({ reply: { secret: undefined, data: { new_secret: "whsec_rotatedValue123" } } }, "rotated");
    logger.info(`registered https://opsbot.test/callbacks/host/${HOST_TOKEN}?x=1`);
    logger.info("slack said invalid_auth for xoxb-1234-5678-abcdefgh");
    const out = text();
    for (const secret of [TELEGRAM_TOKEN, "whsec_rotatedValue123", HOST_TOKEN, "xoxb-1234-5678-abcdefgh"]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain("https://api.telegram.org/bot[redacted]/getMe failed");
    expect(out).toContain("https://opsbot.test/callbacks/host/[redacted]?x=1");
  });

  it("serialises errors with their useful fields and nothing from the request", () => {
    const { logger, lines, text } = capture();
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
      code: "ECONNREFUSED",
      config: { headers: { "X-API-KEY": "AK-in-cause" } },
      request: { url: "https://api.example.com/apiv2/userinfo" },
    });
    const error = new ServiceError({
      family: "userinfo",
      endpoint: "userinfo.get",
      kind: "network",
      message: "the service did not answer",
      retryable: true,
      httpStatus: 503,
      code: 10005,
      details: ["amount: too small"],
      cause,
    });
    logger.error({ err: error }, "call failed");
    const err = lines()[0]!.err as Record<string, unknown>;
    expect(err).toMatchObject({
      name: "ServiceError",
      message: "the service did not answer",
      code: 10005,
      httpStatus: 503,
      endpoint: "userinfo.get",
      kind: "network",
      family: "userinfo",
      retryable: true,
      details: ["amount: too small"],
    });
    expect(err.cause).toMatchObject({
      name: "Error",
      message: "connect ECONNREFUSED 127.0.0.1:9",
      code: "ECONNREFUSED",
    });
    expect(text()).not.toContain("AK-in-cause");
    expect(text()).not.toContain("/apiv2/userinfo");
  });

  it("serialises an error passed as the first argument too, and non-errors without dumping them", () => {
    const { logger, lines } = capture();
    logger.error(Object.assign(new TypeError("boom"), { headers: { authorization: "x" } }));
    logger.error({ err: { headers: { authorization: "Bearer leak" } } }, "odd");
    expect(lines()[0]!.err).toMatchObject({ name: "TypeError", message: "boom" });
    expect(lines()[0]!.err).not.toHaveProperty("headers");
    expect(lines()[1]!.err).toEqual({ name: "NonError", message: "thrown object" });
  });

  it("logs a request as method and path, with the Host Mode token cut out", () => {
    const { logger, lines, text } = capture();
    const req = {
      method: "GET",
      url: `/callbacks/host/${HOST_TOKEN}?address=TXYZ&order_id=1`,
      headers: { "x-api-key": "AK-req", cookie: "session=1" },
    };
    logger.info({ req, res: { statusCode: 404, getHeaders: () => ({}) } }, "callback");
    logger.info({ req: { method: "POST", url: "/webhooks/orders?x=1", headers: {} } }, "webhook");
    expect(lines()[0]).toMatchObject({
      req: { method: "GET", path: "/callbacks/host/[redacted]" },
      res: { statusCode: 404 },
    });
    expect(lines()[0]!.req).not.toHaveProperty("headers");
    expect(lines()[1]!.req).toEqual({ method: "POST", path: "/webhooks/orders" });
    expect(text()).not.toContain(HOST_TOKEN);
    expect(text()).not.toContain("AK-req");
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence of every secret, longest first", () => {
    expect(redactSecrets("abc abcdef abc", ["abc", "abcdef"])).toBe("[redacted] [redacted] [redacted]");
    expect(redactSecrets("nothing here", ["", "zzz"])).toBe("nothing here");
  });

  it("leaves TRON addresses and ordinary numbers readable", () => {
    const text = "1:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t paid 12:30 order 123456:abc";
    expect(redactSecrets(text, [])).toBe(text);
  });

  it("removes token-shaped text from free text for chat", () => {
    expect(redactSecrets(`token ${TELEGRAM_TOKEN} and whsec_abcdefgh1234`, [])).toBe(
      "token [redacted] and [redacted]",
    );
  });
});
