import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  hmacSha256Hex,
  signServiceWebhook,
  verifyServiceWebhook,
} from "../../src/webhooks/service-signature.js";

interface FixtureCase {
  name: string;
  secret: string;
  timestamp: number;
  body: string;
  body_utf8_bytes: number;
  signature: string;
}

const fixtures = JSON.parse(
  readFileSync(new URL("../fixtures/service-signature.json", import.meta.url), "utf8"),
) as { cases: FixtureCase[] };

describe("HMAC primitive against published vectors", () => {
  it("matches GitHub's X-Hub-Signature-256 example (same construction without timestamp)", () => {
    expect(`sha256=${hmacSha256Hex("It's a Secret to Everybody", ["Hello, World!"])}`).toBe(
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    );
  });

  it("matches Slack's request-signing example when fed in parts", () => {
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(hmacSha256Hex("8f742231b10e8888abcd99yyyzzz85a5", ["v0:1531420618:", Buffer.from(body)])).toBe(
      "a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    );
  });

  it("signs `<timestamp>.` + body with the primitive", () => {
    expect(signServiceWebhook("s", 1700000000, "{}")).toBe(`sha256=${hmacSha256Hex("s", ["1700000000.{}"])}`);
  });
});

describe("X-Service-Signature fixtures", () => {
  it("covers a non-ASCII body and an escaped-unicode body with different bytes", () => {
    const names = fixtures.cases.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["non-ascii raw utf-8", "escaped unicode"]));
  });

  for (const fixture of fixtures.cases) {
    it(`signs and verifies: ${fixture.name}`, () => {
      const raw = Buffer.from(fixture.body, "utf8");
      expect(raw.length).toBe(fixture.body_utf8_bytes);
      expect(signServiceWebhook(fixture.secret, fixture.timestamp, raw)).toBe(fixture.signature);
      expect(signServiceWebhook(fixture.secret, fixture.timestamp, fixture.body)).toBe(fixture.signature);
      const result = verifyServiceWebhook({
        rawBody: raw,
        timestampHeader: String(fixture.timestamp),
        signatureHeader: fixture.signature,
        secrets: [fixture.secret],
        nowMs: fixture.timestamp * 1000 + 1_000,
      });
      expect(result).toEqual({ ok: true, secretIndex: 0 });
    });
  }

  it("a body re-serialised from parsed JSON no longer verifies (raw bytes matter)", () => {
    const fixture = fixtures.cases.find((c) => c.name === "escaped unicode")!;
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(fixture.body)), "utf8");
    expect(reserialised.equals(Buffer.from(fixture.body))).toBe(false);
    const result = verifyServiceWebhook({
      rawBody: reserialised,
      timestampHeader: String(fixture.timestamp),
      signatureHeader: fixture.signature,
      secrets: [fixture.secret],
      nowMs: fixture.timestamp * 1000,
    });
    expect(result).toEqual({ ok: false, reason: "mismatch" });
  });
});

describe("verifyServiceWebhook", () => {
  const fixture = fixtures.cases[0]!;
  const base = {
    rawBody: Buffer.from(fixture.body, "utf8"),
    timestampHeader: String(fixture.timestamp),
    signatureHeader: fixture.signature,
    secrets: [fixture.secret],
    nowMs: fixture.timestamp * 1000,
  };

  it("accepts the edges of the 5-minute window in both directions", () => {
    expect(verifyServiceWebhook({ ...base, nowMs: base.nowMs + 300_000 }).ok).toBe(true);
    expect(verifyServiceWebhook({ ...base, nowMs: base.nowMs - 300_000 }).ok).toBe(true);
  });

  it("rejects a stale timestamp", () => {
    expect(verifyServiceWebhook({ ...base, nowMs: base.nowMs + 300_001 })).toEqual({
      ok: false,
      reason: "stale",
    });
  });

  it("rejects a timestamp from the future", () => {
    expect(verifyServiceWebhook({ ...base, nowMs: base.nowMs - 300_001 })).toEqual({
      ok: false,
      reason: "future",
    });
  });

  it("honours a custom tolerance", () => {
    expect(verifyServiceWebhook({ ...base, nowMs: base.nowMs + 2_000, toleranceMs: 1_000 })).toEqual({
      ok: false,
      reason: "stale",
    });
  });

  it("rejects a wrong secret, a changed body and a signature for another timestamp", () => {
    expect(verifyServiceWebhook({ ...base, secrets: ["whsec_other"] })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyServiceWebhook({ ...base, rawBody: Buffer.from(`${fixture.body} `) })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    const shifted = String(fixture.timestamp + 1);
    expect(verifyServiceWebhook({ ...base, timestampHeader: shifted })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyServiceWebhook({ ...base, secrets: [] })).toEqual({ ok: false, reason: "mismatch" });
  });

  it("accepts the second secret during rotation and says which one matched", () => {
    expect(verifyServiceWebhook({ ...base, secrets: ["whsec_new", fixture.secret] })).toEqual({
      ok: true,
      secretIndex: 1,
    });
  });

  it("verifies over the timestamp header as sent, not the number it reads as", () => {
    const padded = `0${fixture.timestamp}`;
    const signedPadded = `sha256=${hmacSha256Hex(fixture.secret, [`${padded}.`, fixture.body])}`;
    expect(verifyServiceWebhook({ ...base, timestampHeader: padded, signatureHeader: signedPadded }).ok).toBe(
      true,
    );
    expect(verifyServiceWebhook({ ...base, timestampHeader: padded })).toEqual({
      ok: false,
      reason: "mismatch",
    });
  });

  it("accepts an upper-case hex signature", () => {
    const upper = `sha256=${fixture.signature.slice(7).toUpperCase()}`;
    expect(verifyServiceWebhook({ ...base, signatureHeader: upper }).ok).toBe(true);
  });

  it("reports missing headers", () => {
    expect(verifyServiceWebhook({ ...base, timestampHeader: undefined })).toEqual({
      ok: false,
      reason: "missing",
    });
    expect(verifyServiceWebhook({ ...base, signatureHeader: "" })).toEqual({ ok: false, reason: "missing" });
  });

  it("reports malformed headers without computing anything", () => {
    for (const signatureHeader of ["sha1=abc", fixture.signature.slice(7), `${fixture.signature}00`]) {
      expect(verifyServiceWebhook({ ...base, signatureHeader })).toEqual({ ok: false, reason: "malformed" });
    }
    for (const timestampHeader of ["1.5", "-1", "soon", "1735689600000000"]) {
      expect(verifyServiceWebhook({ ...base, timestampHeader })).toEqual({ ok: false, reason: "malformed" });
    }
    expect(
      verifyServiceWebhook({ ...base, signatureHeader: [fixture.signature, fixture.signature] }),
    ).toEqual({
      ok: false,
      reason: "malformed",
    });
  });
});
