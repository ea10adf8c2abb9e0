import { describe, expect, it } from "vitest";
import { signSlackRequest, verifyFailureHint, verifySlackSignature } from "../../../adapters/slack/verify.js";

/** Slack's documented request-signing example (shared/test-vectors.md). */
const VECTOR = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body:
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V" +
    "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=" +
    "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN" +
    "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};
const SENT_AT_MS = Number(VECTOR.timestamp) * 1000;

const check = (overrides: Partial<Parameters<typeof verifySlackSignature>[0]> = {}) =>
  verifySlackSignature({
    secrets: [VECTOR.secret],
    rawBody: Buffer.from(VECTOR.body),
    timestamp: VECTOR.timestamp,
    signature: VECTOR.signature,
    nowMs: SENT_AT_MS + 1_000,
    ...overrides,
  });

describe("Slack request signing (v0)", () => {
  it("computes the documented signature of Slack's example", () => {
    expect(signSlackRequest(VECTOR.secret, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signSlackRequest(VECTOR.secret, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(
      VECTOR.signature,
    );
  });

  it("accepts the documented example at its own time, as bytes or as text", () => {
    expect(check()).toEqual({ ok: true });
    expect(check({ rawBody: VECTOR.body })).toEqual({ ok: true });
  });

  it("refuses one changed byte of the body, another secret and a truncated signature", () => {
    expect(check({ rawBody: Buffer.from(VECTOR.body.replace("text=", "text=x")) })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(check({ secrets: ["another-secret"] })).toEqual({ ok: false, reason: "bad_signature" });
    expect(check({ signature: VECTOR.signature.slice(0, -2) })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(check({ signature: VECTOR.signature.replace("v0=", "v1=") })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("accepts a second secret during a rotation", () => {
    expect(check({ secrets: ["the-new-secret", VECTOR.secret] })).toEqual({ ok: true });
  });

  it("enforces the 5-minute window in both directions", () => {
    const at = (offsetMs: number) => check({ nowMs: SENT_AT_MS + offsetMs });
    expect(at(5 * 60_000)).toEqual({ ok: true });
    expect(at(5 * 60_000 + 1)).toEqual({ ok: false, reason: "stale" });
    expect(at(-5 * 60_000)).toEqual({ ok: true });
    expect(at(-5 * 60_000 - 1)).toEqual({ ok: false, reason: "future" });
  });

  it("refuses missing headers and a timestamp that is not a number", () => {
    expect(check({ signature: undefined })).toEqual({ ok: false, reason: "missing_headers" });
    expect(check({ timestamp: undefined })).toEqual({ ok: false, reason: "missing_headers" });
    expect(check({ timestamp: "1531420618.5" })).toEqual({ ok: false, reason: "bad_timestamp" });
    expect(check({ timestamp: "-1" })).toEqual({ ok: false, reason: "bad_timestamp" });
  });

  it("tells the operator what to check without quoting the secret", () => {
    const hint = verifyFailureHint("bad_signature");
    expect(hint).toContain("SLACK_SIGNING_SECRET");
    expect(hint).not.toContain(VECTOR.secret);
    expect(verifyFailureHint("stale")).toMatch(/clock/);
  });
});
