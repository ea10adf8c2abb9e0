import { describe, expect, it } from "vitest";
import { createFileLinks } from "../../../adapters/teams/files.js";
import { createHttpServer } from "../../../src/http/server.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { startTeamsHarness } from "./harness.js";

describe("teams: the Bot Connector's 429", () => {
  it("is retried after its Retry-After; the answer is posted once and whole", async () => {
    const h = await startTeamsHarness();
    await h.say("prices");
    await h.settle();
    const whole = h.fake.activities[0]?.body.text;
    expect(whole).toMatch(/energy_5m/);

    h.fake.throttleNext(1, 1);
    const before = h.fake.requests.filter((r) => r.path.includes("/v3/conversations/")).length;
    expect((await h.say("prices")).status).toBe(200);
    await h.settle();
    const tries = h.fake.requests.filter((r) => r.path.includes("/v3/conversations/")).length - before;
    expect(tries).toBe(2);
    expect(h.fake.activities).toHaveLength(2);
    expect(h.fake.activities[1]?.body.text).toBe(whole);
  });
});

describe("teams: GET /files/<token>", () => {
  it("serves a linked file until it expires; a wrong, altered or expired token is 404", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const store = createMemoryStore({ now: () => now });
    const files = createFileLinks({
      store,
      secret: "s3cret-s3cret-s3cret",
      publicUrl: "https://opsbot.test",
      now: () => now,
    });
    const http = createHttpServer({ routes: [files.route] });
    const port = await http.listen(0, "127.0.0.1");
    try {
      const link = await files.link({
        filename: "cert.pdf",
        contentType: "application/pdf",
        bytes: new Uint8Array([37, 80, 68, 70]),
      });
      expect(link).toMatch(/^https:\/\/opsbot\.test\/files\/[\w.-]+$/);
      const token = link.slice(link.lastIndexOf("/") + 1);
      const get = (t: string) => fetch(`http://127.0.0.1:${port}/files/${t}`);
      const ok = await get(token);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("content-type")).toBe("application/pdf");
      expect([...new Uint8Array(await ok.arrayBuffer())]).toEqual([37, 80, 68, 70]);
      const altered = `${token.slice(0, -2)}${token.endsWith("A") ? "B" : "A"}${token.slice(-1)}`;
      expect((await get(altered)).status).toBe(404);
      expect((await get("nothing.here.at-all")).status).toBe(404);
      now += 24 * 3_600_000 + 1;
      expect((await get(token)).status).toBe(404);
    } finally {
      await http.close();
    }
  });
});
