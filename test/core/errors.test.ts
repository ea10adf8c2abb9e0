import { describe, expect, it } from "vitest";
import { reportError, toUserLine, UserError } from "../../src/core/errors.js";
import { createMemoryLogger } from "../../src/core/logger.js";
import { ServiceError, type ServiceErrorInit } from "../../src/service/errors.js";

const service = (init: Partial<ServiceErrorInit>) =>
  new ServiceError({
    family: "order5m",
    endpoint: "order5m.create",
    kind: "http",
    message: "x",
    retryable: false,
    ...init,
  });

describe("toUserLine", () => {
  it("says how long to wait on a rate limit", () => {
    expect(toUserLine(service({ kind: "rate_limited", httpStatus: 429, retryAfterMs: 2300 }))).toBe(
      "The service is busy (rate limit); try again in 3 s.",
    );
    expect(toUserLine(service({ kind: "rate_limited", httpStatus: 429 }))).toBe(
      "The service is busy (rate limit); try again in a few seconds.",
    );
  });

  it("says a request the client refused before sending was not sent", () => {
    const line = toUserLine(
      service({ kind: "not_sent", code: 1003, message: "energy amount out of range." }),
    );
    expect(line).toBe("Not sent: energy amount out of range.");
  });

  it("does not claim nothing was charged on a generic timeout", () => {
    const line = toUserLine(service({ kind: "timeout" }));
    expect(line).toBe("The service did not answer in time; try again in a moment.");
    expect(line).not.toContain("charged");
  });

  it("maps HTTP refusals with the spec's code and the service's message", () => {
    expect(
      toUserLine(
        service({ httpStatus: 400, code: 1003, message: "Amount must be between 61000 and 650000." }),
      ),
    ).toBe("The service refused: Amount must be between 61000 and 650000 (code 1003).");
    expect(
      toUserLine(service({ httpStatus: 422, message: "amount: too small", details: ["amount: too small"] })),
    ).toBe("The service refused: amount: too small (HTTP 422).");
    expect(
      toUserLine(
        service({
          httpStatus: 422,
          code: 5004,
          message: "invalid field",
          details: ["items.0.amount: too small"],
        }),
      ),
    ).toBe("The service refused: invalid field (code 5004). items.0.amount: too small.");
    expect(toUserLine(service({ httpStatus: 402, code: 4020, message: "insufficient balance" }))).toBe(
      "Not enough balance on the service account: insufficient balance (code 4020).",
    );
    expect(toUserLine(service({ httpStatus: 401, code: -1, message: "invalid key" }))).toContain(
      "SERVICE_API_KEY",
    );
    expect(toUserLine(service({ httpStatus: 502 }))).toBe(
      "The service had a problem (HTTP 502); try again later.",
    );
    expect(toUserLine(service({ kind: "network" }))).toBe(
      "Could not reach the service; try again in a moment.",
    );
  });

  it("passes a command's own line through and hides unknown errors behind a ref", () => {
    expect(toUserLine(new UserError("The service did not answer in time; nothing was charged."))).toBe(
      "The service did not answer in time; nothing was charged.",
    );
    expect(toUserLine(new TypeError("x is undefined"), "abcd1234")).toBe(
      "Something went wrong (ref abcd1234); the details are in the log.",
    );
  });
});

describe("reportError", () => {
  it("logs an unknown error at error level with the ref the user sees", () => {
    const logger = createMemoryLogger();
    const error = new TypeError("boom");
    const line = reportError(logger, error, { verb: "energy" });
    const ref = /ref ([0-9a-f]{8})\)/.exec(line)?.[1];
    expect(ref).toBeDefined();
    expect(logger.records).toEqual([
      { level: "error", obj: { verb: "energy", err: error, ref }, msg: "command failed" },
    ]);
  });

  it("logs service failures at warn with their code, and user errors at info", () => {
    const logger = createMemoryLogger();
    reportError(logger, service({ httpStatus: 400, code: 1003 }));
    reportError(logger, new UserError("no", { code: "bad_input" }));
    expect(logger.records.map((r) => [r.level, r.obj.code])).toEqual([
      ["warn", 1003],
      ["info", "bad_input"],
    ]);
  });
});
