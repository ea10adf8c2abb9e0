import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { isServiceError } from "../../src/service/errors.js";
import { useSandboxClient } from "../support/service-kit.js";

/**
 * Every exchange with the service has a deadline for the whole of it (its `timeoutMs`): a
 * service that does not answer in time fails the call as a timeout, and the deadline of an
 * exchange that was answered never touches a later one.
 */
const kit = useSandboxClient({ sandbox: { enforceRateLimits: false } });

const lookup = (timeoutMs: number, address: string) =>
  kit.transport().send({
    family: "compliance",
    endpoint: "compliance.lookup",
    method: "GET",
    path: `/apiv2/compliance/${address}`,
    auth: "none",
    timeoutMs,
    buckets: [],
    resendable: true,
    maxAttempts: 1,
  });

describe("transport: the deadline of one exchange", () => {
  it("fails a call the service holds past its deadline as a timeout, naming the endpoint", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    kit.sandbox.inject("compliance.lookup", { kind: "hold", until: held });
    const error = await lookup(1_000, tronAddress("deadline-held")).catch((e: unknown) => e);
    release();
    expect(isServiceError(error) && error.kind).toBe("timeout");
    expect((error as Error).message).toBe("the service did not answer compliance.lookup within 1 s");
  });

  it("leaves a later call alone once an earlier one was answered before its deadline", async () => {
    const before = kit.sandbox.calls("compliance.lookup").length;
    const first = await lookup(150, tronAddress("deadline-first"));
    expect(first.status).toBe(200);
    // Past the first call's deadline, a second call on the same connection is still answered.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await lookup(5_000, tronAddress("deadline-second"));
    expect(second.status).toBe(200);
    const answered = kit.sandbox.calls("compliance.lookup").slice(before);
    expect(answered.map((c) => c.status)).toEqual([200, 200]);
  });
});
