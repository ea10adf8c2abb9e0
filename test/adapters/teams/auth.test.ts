import { describe, expect, it } from "vitest";
import { messageActivity, startTeamsHarness } from "./harness.js";

/**
 * CONTRACT.md "Microsoft Teams" and the routes table: any failure of the token's checks is a 401
 * with no effect, and no request is sent anywhere (beyond reading the channel's key set).
 */
const sentAnywhere = (requests: { path: string }[]) =>
  requests.filter((r) => r.path !== "/openid" && r.path !== "/keys");

describe("teams: POST /api/messages takes only activities whose token passes", () => {
  it("a good token runs the command; each kind of bad token is 401, and nothing is sent or run", async () => {
    const h = await startTeamsHarness();
    const bad: [string, string | null][] = [
      ["no token", null],
      ["forged signature under a known key id", await h.fake.sign({ key: "forged" })],
      ["key endorsed for webchat only", await h.fake.sign({ key: "webchat-only" })],
      ["expired beyond 5 minutes", await h.fake.sign({ expiresIn: -400 })],
      ["wrong audience", await h.fake.sign({ audience: "0b0f1e2d-0000-4000-8000-000000000bad" })],
      ["wrong issuer", await h.fake.sign({ issuer: "https://evil.example" })],
      ["serviceurl claim of another service", await h.fake.sign({ serviceUrl: `${h.fake.url}/emea/` })],
      ["not a JWT", "abc.def"],
    ];
    for (const [why, token] of bad) {
      const response = await h.say("prices", { token });
      expect(response.status, why).toBe(401);
    }
    await h.settle();
    expect(sentAnywhere(h.fake.requests)).toEqual([]);
    expect(h.sandbox.calls("pricing.get")).toEqual([]);

    // Within the 5 minutes of skew, the same command runs.
    expect((await h.say("prices", { token: await h.fake.sign({ expiresIn: -200 }) })).status).toBe(200);
    await h.settle();
    expect(h.fake.activities).toHaveLength(1);
  });

  it("a serviceUrl outside TEAMS_SERVICE_URLS is refused (401), even with a token naming it, and nothing is sent there", async () => {
    const h = await startTeamsHarness();
    const elsewhere = "https://127.0.0.2:9/amer/";
    const token = await h.fake.sign({ serviceUrl: elsewhere });
    const response = await h.post(messageActivity(h.fake, "prices", { serviceUrl: elsewhere }), token);
    expect(response.status).toBe(401);
    await h.settle();
    expect(h.fake.requests).toEqual([]);
  });

  it("another tenant gets one refusal line and nothing it asked for is done", async () => {
    const h = await startTeamsHarness();
    const response = await h.say("prices", { tenant: "0ddba11a-0000-4000-8000-000000000000" });
    expect(response.status).toBe(200);
    await h.settle();
    expect(h.fake.activities).toHaveLength(1);
    expect(h.fake.activities[0]?.body.text).toBe("This bot serves one organisation only.");
    expect(h.sandbox.calls("pricing.get")).toEqual([]);
  });
});
