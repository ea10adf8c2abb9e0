import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/server.js";

/**
 * The sandbox's deny list as watchlist tests drive it: `stats` with its `revision`, the batch per
 * the spec (request order kept, malformed entries `invalid`, at most 1000), and the test controls
 * that change the list at run time.
 */
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(): Promise<Sandbox> {
  sandbox = await createSandbox({ enforceRateLimits: false, screening: { demoData: false } });
  return sandbox;
}

const stats = async (s: Sandbox) =>
  (await (await fetch(`${s.url}/apiv2/compliance/stats`)).json()) as {
    code: number;
    data: { revision: number; usdt_frozen: number; aml_risk: number; total: number; checked_at: string };
  };

const batch = (s: Sandbox, addresses: unknown[]) =>
  fetch(`${s.url}/apiv2/compliance/batch`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": DEFAULT_API_KEY,
      "x-real-ip": DEFAULT_REAL_IP,
    },
    body: JSON.stringify({ addresses }),
  });

describe("sandbox deny list controls", () => {
  it("moves an address between sets with a new revision each time, seen by stats and batch", async () => {
    const s = await start();
    const [a, b] = [tronAddressFrom("ctl-a"), tronAddressFrom("ctl-b")];
    const first = await stats(s);
    expect(first.code).toBe(0);
    expect(first.data).toMatchObject({ total: 0, revision: s.screening.revision() });

    s.screening.setCategory(a, "usdt_frozen");
    const second = await stats(s);
    expect(second.data.revision).toBe(first.data.revision + 1);
    expect(second.data.usdt_frozen).toBe(1);

    s.screening.setCategory(a, "aml_risk", { severity: "BLOCK", reason_code: "OFAC_SDN", label: "OFAC" });
    const third = await stats(s);
    expect(third.data).toMatchObject({ usdt_frozen: 0, aml_risk: 1, total: 1 });

    const reply = await batch(s, [b, "nope", a]);
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { data: { count: number; results: Record<string, unknown>[] } };
    expect(body.data.count).toBe(3);
    expect(body.data.results.map((r) => r.category)).toEqual(["clean", "invalid", "aml_risk"]);
    expect(body.data.results[2]).toMatchObject({
      address: a,
      blocked: true,
      severity: "BLOCK",
      reason_code: "OFAC_SDN",
      label: "OFAC",
    });

    s.screening.setCategory(a, "clean");
    expect((await stats(s)).data.total).toBe(0);
    const before = s.screening.revision();
    expect(s.screening.bumpRevision()).toBe(before + 1);
    expect((await stats(s)).data.revision).toBe(before + 1);
  });

  it("refuses a batch of more than 1000 addresses", async () => {
    const s = await start();
    const reply = await batch(
      s,
      Array.from({ length: 1001 }, (_, i) => tronAddressFrom(`many-${i}`)),
    );
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { code: number }).code).toBe(1001);
  });
});
