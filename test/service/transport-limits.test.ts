import { describe, expect, it } from "vitest";
import { tronAddress } from "../../src/sandbox/families/energy/common.js";
import { order5mIdempotencyKey } from "../../src/service/idempotency.js";
import { createRateLimiter } from "../../src/service/limiter.js";
import { RATE_BUCKETS } from "../../src/service/rate-limits.js";
import { useSandboxClient } from "../support/service-kit.js";

/**
 * The service counts a call when it arrives. A slow endpoint (order5m answers in 0.5 to 2 s)
 * must not hold its rate-limit slot until the answer, or the bot places half the orders the
 * limit allows; nor may the next call arrive before the service's window let it.
 */
const LATENCY_MS = 700;
const kit = useSandboxClient({
  sandbox: { enforceRateLimits: false, energy: { order5mLatencyMs: LATENCY_MS, webhookDelayMs: 60_000 } },
});

describe("transport and limiter: a slow call's slot counts from shortly after its request was written", () => {
  it("admits the next order5m a window after the first was sent, not a window after its answer", async () => {
    const limiter = createRateLimiter({
      keyPrefix: `rl-sent-${process.pid}:`,
      windows: { ...RATE_BUCKETS, order5m: [{ points: 2, durationMs: 1_000 }] },
    });
    const api = kit.client({ limiter }).order5m;
    const addresses = [0, 1, 2].map((i) => tronAddress(`sent-stamp-${process.pid}-${i}`));
    await Promise.all(
      addresses.map((receiveAddress, i) =>
        api.create({
          amount: 65_000,
          receiveAddress,
          idempotencyKey: order5mIdempotencyKey({
            confirmationId: `c${i}`,
            period: "5m",
            receiveAddress,
            amount: 65_000,
          }),
        }),
      ),
    );
    const arrivals = kit.sandbox.calls("order5m.create").map((c) => c.at);
    expect(arrivals).toHaveLength(3);
    const gap = arrivals[2]! - arrivals[0]!;
    // The limit holds (two per second)…
    expect(gap).toBeGreaterThanOrEqual(1_000);
    // …and the third did not wait for the first two answers (that would be ≥ 1000 + 700 ms), only
    // for the moment by which the service surely counted them (250 ms after they were written).
    expect(gap).toBeLessThan(1_000 + LATENCY_MS);
  });
});
