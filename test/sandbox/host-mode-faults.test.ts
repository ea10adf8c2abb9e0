import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";

/**
 * The sandbox's Host Mode can lose an answer after the call took effect, as a real network does:
 * `late` (answered after the caller gave up), `lost` (the connection dropped, or a 5xx instead of
 * the answer). The start happened all the same, and a repeat answers as the spec says (-5).
 */
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const ADDRESS = tronAddress("sandbox-host-faults");

function call(s: Sandbox, path: string, body: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(`${s.url}/apiv2/time/${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": DEFAULT_API_KEY,
      "x-real-ip": DEFAULT_REAL_IP,
    },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
}

async function registered(options: SandboxOptions = {}): Promise<Sandbox> {
  sandbox = await createSandbox({
    enforceRateLimits: false,
    energy: { hostFirstCycleMs: 60_000 },
    ...options,
  });
  const added = (await (await call(sandbox, "add", { address: ADDRESS })).json()) as { code: number };
  expect(added.code).toBe(0);
  return sandbox;
}

describe("sandbox Host Mode: answers lost after the call took effect", () => {
  it("lost: the connection drops, Host Mode is active, a repeat answers -5", async () => {
    const s = await registered();
    s.inject("host.infinitystart", { kind: "lost" });
    await expect(call(s, "infinitystart", { address: ADDRESS })).rejects.toThrow();
    expect(s.energy.hostAddress(ADDRESS)?.status).toBe("active");
    const again = await (await call(s, "infinitystart", { address: ADDRESS })).json();
    expect(again).toEqual({ code: -5, msg: "Host mode is already active for this address", data: null });
    expect(s.calls("host.infinitystart").map((c) => c.status)).toEqual([-1, 200]);
  });

  it("lost with a 5xx: the caller reads 502, Host Mode is active", async () => {
    const s = await registered();
    s.inject("host.infinitystart", { kind: "lost", reply: { status: 502, json: { detail: "Bad Gateway" } } });
    expect((await call(s, "infinitystart", { address: ADDRESS })).status).toBe(502);
    expect(s.energy.hostAddress(ADDRESS)?.status).toBe("active");
  });

  it("late: active at once, answered only after the delay (a caller that gave up never hears it)", async () => {
    const late = heldSleep();
    const s = await registered({ sleep: late.sleep });
    s.inject("host.infinitystart", { kind: "late", ms: 400 });
    const caller = new AbortController();
    const gaveUp = call(s, "infinitystart", { address: ADDRESS }, caller.signal);
    // The answer waits for the delay, held here; the start has already taken effect.
    expect(await Promise.race([late.requested, gaveUp.then(() => "answered at once")])).toBe(400);
    expect(s.energy.hostAddress(ADDRESS)?.status).toBe("active");
    caller.abort();
    await expect(gaveUp).rejects.toThrow(/abort/i);
    late.release();
  });

  it("reset (before the endpoint): nothing started", async () => {
    const s = await registered();
    s.inject("host.infinitystart", { kind: "reset" });
    await expect(call(s, "infinitystart", { address: ADDRESS })).rejects.toThrow();
    expect(s.energy.hostAddress(ADDRESS)?.status).toBe("inactive");
  });
});

/** A sleep that lasts until the test lets go; `requested` gives the delay it was asked for. */
function heldSleep() {
  let asked: (ms: number) => void = () => {};
  let release = () => {};
  return {
    requested: new Promise<number>((resolve) => {
      asked = resolve;
    }),
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        asked(ms);
        release = resolve;
      }),
    release: () => release(),
  };
}
