import { describe, expect, it } from "vitest";
import { commands } from "../../../src/core/command-registry.js";
import type { CoreDeps } from "../../../src/core/deps.js";
import { features } from "../../../src/core/features.js";
import type { ConversationRef } from "../../../src/core/invocation.js";
import { type OriginKind, rememberOrigin } from "../../../src/core/origins.js";
import {
  type Notification,
  notificationKey,
  parseHostCallback,
  parseServiceEvent,
} from "../../../src/core/service-events/events.js";
import { renderNotification } from "../../../src/core/service-events/notifications-render.js";
import { definitionOf, notificationDefinitions } from "../../../src/core/service-events/registry.js";
import { createMemoryStore } from "../../../src/store/memory-store.js";
import { replyText } from "../../support/core-harness.js";

/**
 * The notification registry read from the features: one definition per event, and every event the
 * service sends (the spec's "Events", plus our Host Mode pause) parsed, keyed, routed back to its
 * origin and rendered by it. Removing an event's definition from its feature fails here.
 */
const ADDRESS = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
const HASH = "c".repeat(64);
const conversation: ConversationRef = { platform: "slack", id: "C0REGISTRY" };

interface Sample {
  parse(): ReturnType<typeof parseServiceEvent> | ReturnType<typeof parseHostCallback>;
  key: string;
  origin: [OriginKind, string];
}

const SAMPLES: Record<string, Sample> = {
  "delegation.confirmed": {
    parse: () =>
      parseServiceEvent("orders", {
        event: "delegation.confirmed",
        delivery_id: 41,
        order_id: "5M0001",
        receive_address: ADDRESS,
        tx_hashes: [HASH],
      }),
    key: "orders:41",
    origin: ["order", "5M0001"],
  },
  "bandwidth.delegated": {
    parse: () =>
      parseServiceEvent("orders", {
        event: "bandwidth.delegated",
        delivery_id: "42",
        order_id: "BW0001",
        fulfillment: "delegated",
      }),
    key: "orders:42",
    origin: ["order", "BW0001"],
  },
  "activation.confirmed": {
    parse: () =>
      parseServiceEvent("orders", {
        event: "activation.confirmed",
        delivery_id: 43,
        order_id: "AC0001",
        address: ADDRESS,
        source: "5M0001",
      }),
    key: "orders:43",
    // Found through the energy order that needed it.
    origin: ["order", "5M0001"],
  },
  "report.ready": {
    parse: () =>
      parseServiceEvent("reports", {
        event: "report.ready",
        delivery_id: 44,
        order_id: "RP0001",
        status: "failed",
      }),
    key: "reports:44",
    origin: ["report", "RP0001"],
  },
  "host.cycle": {
    parse: () => parseHostCallback({ address: ADDRESS, order_id: "HM0001", hash: HASH, charged: "3.1" }),
    key: "host:HM0001",
    origin: ["host", ADDRESS],
  },
  host_paused: {
    parse: () =>
      parseHostCallback({ event: "host_paused", address: ADDRESS, reason: "stopped", timestamp: "1700" }),
    key: `host-paused:${ADDRESS}:1700`,
    origin: ["host", ADDRESS],
  },
};

function parsed(sample: Sample): Notification {
  const result = sample.parse();
  if (result.kind !== "event") throw new Error(`not read as an event: ${JSON.stringify(result)}`);
  return result.event;
}

describe("notification registry", () => {
  it("has exactly one definition per event name, each under its own name in its feature", () => {
    const listed = features.flatMap((feature) =>
      Object.entries<{ event: string }>(feature.notifications ?? {}).map(([name, definition]) => {
        expect(definition.event).toBe(name);
        return name;
      }),
    );
    expect([...listed].sort()).toEqual(Object.keys(SAMPLES).sort());
    expect(notificationDefinitions.map((d) => d.event).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  for (const [name, sample] of Object.entries(SAMPLES)) {
    it(`${name}: parsed, keyed, routed to its origin and rendered by its definition`, async () => {
      const n = parsed(sample);
      expect(n.event).toBe(name);
      expect(definitionOf(n).event).toBe(name);
      expect(notificationKey(n)).toBe(sample.key);

      const store = createMemoryStore();
      const deps = { store } as unknown as CoreDeps;
      expect(await definitionOf(n).origin(deps, n)).toBeNull();
      await rememberOrigin(store, sample.origin[0], sample.origin[1], conversation);
      expect(await definitionOf(n).origin(deps, n)).toEqual(conversation);

      const reply = renderNotification(n, "https://tronscan.org/#/transaction/");
      expect(reply.summary.length).toBeGreaterThan(0);
      expect(replyText(reply).length).toBeGreaterThan(0);
    });
  }

  it("an event no feature defines is acknowledged as unknown, not read", () => {
    expect(parseServiceEvent("orders", { event: "report.ready", delivery_id: 1, order_id: "X" })).toEqual({
      kind: "unknown",
      eventName: "report.ready",
      deliveryId: "1",
    });
    expect(parseHostCallback({ event: "host_resumed", address: ADDRESS })).toEqual({
      kind: "unknown",
      eventName: "host_resumed",
    });
  });
});

describe("features", () => {
  it("list the commands in help's order", () => {
    expect(commands.map((c) => c.verb)).toEqual([
      "help",
      "screen",
      "compliance",
      "energy",
      "host",
      "schedule",
      "prices",
      "balance",
      "statement",
      "digest",
      "chart",
      "watch",
      "alerts",
      "subscribe",
      "unsubscribe",
      "subscriptions",
      "cases",
      "case",
      "certificate",
      "verify",
      "audit",
      "setup",
      "subuser",
    ]);
  });

  it("have one feature per name and no button kind twice", () => {
    const names = features.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const kinds = features.flatMap((f) => (f.actions ?? []).map((a) => a.kind));
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});
