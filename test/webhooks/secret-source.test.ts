import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../../src/core/logger.js";
import { storeWebhookSecret } from "../../src/core/setup/webhook-secrets.js";
import { createMemoryStore } from "../../src/store/memory-store.js";
import type { Store } from "../../src/store/store.js";
import { createSecretSource } from "../../src/webhooks/secret-source.js";
import { fakeClock } from "../core/support.js";

const CONFIGURED = { orders: ["whsec_env-orders"], reports: ["whsec_env-reports"] };

function setup(store: Store = createMemoryStore()) {
  const clock = fakeClock();
  const logger = createMemoryLogger();
  const source = createSecretSource({ store, configured: CONFIGURED, logger, now: clock.now });
  return { store, clock, logger, source };
}

const keep = (store: Store, secret: string, endpointId = 1) =>
  storeWebhookSecret(store, "orders", {
    endpointId,
    secret,
    url: "https://bot.test/webhooks/orders",
    storedAt: 0,
  });

describe("accepted webhook secrets", () => {
  it("accepts the configured secrets of the family and the stored ones", async () => {
    const { store, source } = setup();
    await keep(store, "whsec_stored");
    expect(await source.current("orders")).toEqual(["whsec_env-orders", "whsec_stored"]);
    expect(await source.current("reports")).toEqual(["whsec_env-reports"]);
  });

  it("caches the stored ones and reloads on a mismatch, at most every 250 ms", async () => {
    const { store, source, clock } = setup();
    await source.current("orders");
    await keep(store, "whsec_new");
    expect(await source.current("orders")).toEqual(["whsec_env-orders"]);
    expect(await source.reload("orders")).toBeUndefined(); // too soon after the last read
    clock.advance(300);
    expect(await source.reload("orders")).toEqual(["whsec_env-orders", "whsec_new"]);
    clock.advance(300);
    expect(await source.reload("orders")).toBeUndefined(); // nothing new to learn
    expect(await source.current("orders")).toEqual(["whsec_env-orders", "whsec_new"]);
  });

  it("keeps verifying with what it knows when the store is down", async () => {
    const working = createMemoryStore();
    let down = false;
    const flaky: Store = {
      ...working,
      hashGetAll: (key) => (down ? Promise.reject(new Error("store down")) : working.hashGetAll(key)),
    };
    const { source, clock, logger } = setup(flaky);
    await keep(working, "whsec_stored");
    expect(await source.current("orders")).toEqual(["whsec_env-orders", "whsec_stored"]);
    down = true;
    clock.advance(60_000);
    expect(await source.current("orders")).toEqual(["whsec_env-orders", "whsec_stored"]);
    expect(logger.records.map((r) => r.msg)).toEqual(["could not read the registered webhook secrets"]);
  });
});
