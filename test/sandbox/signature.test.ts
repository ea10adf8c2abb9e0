import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signWebhookBody } from "../../src/sandbox/signature.js";

/**
 * The sandbox signs with its own code, written from the spec. It must produce the fixed vectors the
 * bot's verifier is held to (test/unit/service-signature.test.ts reads the same file): the two sides
 * agree through the fixtures, never through shared code.
 */
interface FixtureCase {
  name: string;
  secret: string;
  timestamp: number;
  body: string;
  signature: string;
}

const fixtures = JSON.parse(
  readFileSync(new URL("../fixtures/service-signature.json", import.meta.url), "utf8"),
) as { cases: FixtureCase[] };

describe("sandbox webhook signature", () => {
  it("has the fixed vectors to sign", () => {
    expect(fixtures.cases.length).toBeGreaterThanOrEqual(4);
  });

  for (const fixture of fixtures.cases) {
    it(`signs the fixed vector: ${fixture.name}`, () => {
      expect(signWebhookBody(fixture.secret, fixture.timestamp, Buffer.from(fixture.body, "utf8"))).toBe(
        fixture.signature,
      );
      expect(signWebhookBody(fixture.secret, fixture.timestamp, fixture.body)).toBe(fixture.signature);
    });
  }

  it("depends on the secret, the timestamp and every byte of the body", () => {
    const fixture = fixtures.cases[0]!;
    const sign = signWebhookBody;
    expect(sign(`${fixture.secret}x`, fixture.timestamp, fixture.body)).not.toBe(fixture.signature);
    expect(sign(fixture.secret, fixture.timestamp + 1, fixture.body)).not.toBe(fixture.signature);
    expect(sign(fixture.secret, fixture.timestamp, `${fixture.body} `)).not.toBe(fixture.signature);
  });
});
