import { afterEach, describe, expect, it } from "vitest";
import { tronAddressFrom } from "../../src/sandbox/families/screening.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/server.js";

/**
 * What the sandbox remembers of the calls it answered: every one for tests, the latest
 * `keepCalls` for the demo bot's built-in sandbox, which may run for days.
 */
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function lookups(s: Sandbox, count: number): Promise<string[]> {
  const addresses = Array.from({ length: count }, (_, i) => tronAddressFrom(`call-log-${i}`));
  for (const address of addresses) await (await fetch(`${s.url}/apiv2/compliance/${address}`)).arrayBuffer();
  return addresses;
}

describe("sandbox call log", () => {
  it("keeps every call by default", async () => {
    sandbox = await createSandbox({ enforceRateLimits: false });
    const addresses = await lookups(sandbox, 9);
    expect(sandbox.calls("compliance.lookup").map((c) => c.path)).toEqual(
      addresses.map((a) => `/apiv2/compliance/${a}`),
    );
  });

  it("with keepCalls, keeps only the latest, in order", async () => {
    sandbox = await createSandbox({ enforceRateLimits: false, keepCalls: 3 });
    const addresses = await lookups(sandbox, 9);
    expect(sandbox.calls().map((c) => c.path)).toEqual(
      addresses.slice(-3).map((a) => `/apiv2/compliance/${a}`),
    );
  });
});
