import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../../../src/core/logger.js";
import {
  BUSY_RETRIES,
  BUSY_WAIT_MAX_MS,
  CAPACITY_WAIT_MS,
  withResend,
} from "../../../src/core/spend/resend.js";
import { ServiceError, type ServiceErrorInit } from "../../../src/service/errors.js";

const error = (init: Partial<ServiceErrorInit>) =>
  new ServiceError({
    family: "order5m",
    endpoint: "order5m.create",
    kind: "http",
    message: "x",
    retryable: false,
    ...init,
  });

/** A call that fails with the given errors in turn, then answers "ok". */
function scripted(errors: unknown[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    call: async () => {
      const next = errors[calls++];
      if (next !== undefined) throw next;
      return "ok";
    },
  };
}

function setup() {
  const waits: number[] = [];
  const logger = createMemoryLogger();
  const options = { logger, endpoint: "order5m.create", sleep: async (ms: number) => void waits.push(ms) };
  return { waits, logger, options };
}

describe("withResend", () => {
  it("resends once after a timeout or a network error, never twice", async () => {
    const { options } = setup();
    const once = scripted([error({ kind: "timeout" })]);
    await expect(withResend(once.call, options)).resolves.toBe("ok");
    expect(once.calls).toBe(2);
    const twice = scripted([error({ kind: "network" }), error({ kind: "timeout" })]);
    await expect(withResend(twice.call, options)).rejects.toMatchObject({ kind: "timeout" });
    expect(twice.calls).toBe(2);
  });

  it("retries pools at capacity (5003) once after the spec's 2-3 s, then gives up", async () => {
    const { waits, options } = setup();
    const full = error({ code: 5003, httpStatus: 503, retryable: true });
    const freed = scripted([full]);
    await expect(withResend(freed.call, options)).resolves.toBe("ok");
    expect(freed.calls).toBe(2);
    expect(waits).toEqual([CAPACITY_WAIT_MS]);
    const stillFull = scripted([full, full]);
    await expect(withResend(stillFull.call, options)).rejects.toBe(full);
    expect(stillFull.calls).toBe(2);
  });

  it("waits as duplicate_request_processing asks, capped, a bounded number of times", async () => {
    const { waits, options } = setup();
    const busy = error({ code: "duplicate_request_processing", httpStatus: 409, retryAfterMs: 60_000 });
    const recovering = scripted([busy, error({ code: "duplicate_request_processing", retryAfterMs: 1_000 })]);
    await expect(withResend(recovering.call, options)).resolves.toBe("ok");
    expect(waits).toEqual([BUSY_WAIT_MAX_MS, 1_000]);

    const stuck = scripted(Array.from({ length: BUSY_RETRIES + 1 }, () => busy));
    await expect(withResend(stuck.call, options)).rejects.toBe(busy);
    expect(stuck.calls).toBe(BUSY_RETRIES + 1);
  });

  it("never resends a refusal or a foreign error", async () => {
    const { options } = setup();
    const refused = scripted([error({ code: 1004, httpStatus: 403 })]);
    await expect(withResend(refused.call, options)).rejects.toMatchObject({ code: 1004 });
    expect(refused.calls).toBe(1);
    const bug = scripted([new TypeError("bug")]);
    await expect(withResend(bug.call, options)).rejects.toBeInstanceOf(TypeError);
    expect(bug.calls).toBe(1);
  });
});
