import { describe, expect, it } from "vitest";
import type { Reply, Span } from "../../../src/core/reply.js";
import {
  type Notification,
  parseHostCallback,
  parseServiceEvent,
  type WebhookFamily,
} from "../../../src/core/service-events/events.js";
import { asAlert, renderNotification } from "../../../src/core/service-events/notifications-render.js";
import { replyText } from "../../support/core-harness.js";

/**
 * The notification renderers, fed with bodies as the spec's "Events" section writes them (parsed
 * by the same functions the receivers use): order id, address and every hash linked.
 */
const EXPLORER = "https://tronscan.org/#/transaction/";
const ADDRESS = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
const H1 = "a".repeat(64);
const H2 = "b".repeat(64);

function event(family: WebhookFamily, body: Record<string, unknown>): Notification {
  const parsed = parseServiceEvent(family, body);
  if (parsed.kind !== "event") throw new Error(`not an event: ${JSON.stringify(parsed)}`);
  return parsed.event;
}

function callback(query: Record<string, string>): Notification {
  const parsed = parseHostCallback(query);
  if (parsed.kind !== "event") throw new Error(`not a callback: ${JSON.stringify(parsed)}`);
  return parsed.event;
}

const spans = (reply: Reply): Span[] =>
  reply.blocks.flatMap((b) =>
    b.type === "fields"
      ? b.fields.flatMap((f) => f.value)
      : b.type === "text" || b.type === "context"
        ? b.spans
        : [],
  );
const links = (reply: Reply): string[] => spans(reply).flatMap((s) => (s.href ? [s.href] : []));
const render = (n: Notification): { reply: Reply; text: string } => {
  const reply = renderNotification(n, EXPLORER);
  return { reply, text: replyText(reply) };
};

const base = { delivery_id: 17, tx_hashes: [H1], confirmed_at: "2025-03-01T12:00:05Z" };

describe("order webhooks", () => {
  it("delegation.confirmed: order, address, energy, rental and the hash linked", () => {
    const { reply, text } = render(
      event("orders", {
        ...base,
        event: "delegation.confirmed",
        order_id: "5M00000001ABCDEF",
        order_type: "5m",
        receive_address: ADDRESS,
        energy_amount: 65_050,
        tx_hash: H1,
      }),
    );
    expect(text).toContain("Order: 5M00000001ABCDEF");
    expect(text).toContain(`Address: ${ADDRESS}`);
    expect(text).toContain("Energy: 65,050");
    expect(text).toContain("Rental: 5 minutes");
    expect(text).toContain("Confirmed: 2025-03-01 12:00:05 UTC");
    expect(links(reply)).toEqual([`${EXPLORER}${H1}`]);
    expect(reply.summary).toBe("Energy delivered: 65,050 energy to TJRabPrw…RTv8 (order 5M00000001ABCDEF)");
    expect(reply.visibility).toBe("public");
  });

  it("links every hash of tx_hashes, and falls back to the legacy tx_hash", () => {
    const two = render(
      event("orders", { ...base, event: "delegation.confirmed", order_id: "1H1", tx_hashes: [H1, H2] }),
    );
    expect(links(two.reply)).toEqual([`${EXPLORER}${H1}`, `${EXPLORER}${H2}`]);
    const legacy = render(
      event("orders", {
        ...base,
        event: "delegation.confirmed",
        order_id: "1H2",
        tx_hashes: [],
        tx_hash: H2,
      }),
    );
    expect(links(legacy.reply)).toEqual([`${EXPLORER}${H2}`]);
  });

  it("bandwidth.delegated says what each fulfillment means", () => {
    const bw = (fulfillment: string, hashes: string[]) =>
      render(
        event("orders", {
          ...base,
          event: "bandwidth.delegated",
          order_id: "BW00000001",
          order_type: "bandwidth",
          rental_label: "1 hour",
          rental_seconds: 3600,
          receive_address: ADDRESS,
          bandwidth_amount: 400,
          fulfillment,
          tx_hashes: hashes,
        }),
      );
    const delegated = bw("delegated", [H1]);
    expect(delegated.text).toMatch(/^Bandwidth delivered\n400 bandwidth delegated to TJRabPrw…RTv8\./);
    expect(links(delegated.reply)).toEqual([`${EXPLORER}${H1}`]);
    expect(bw("trx_send", [H2]).text).toContain(
      "The service sent TRX to TJRabPrw…RTv8 instead of delegating 400 bandwidth.",
    );
    const enough = bw("already_enough", []);
    expect(enough.text).toContain("already had enough free bandwidth");
    expect(enough.text).toContain("Transactions: none");
    expect(links(enough.reply)).toEqual([]);
    expect(bw("from_the_future", [H1]).text).toMatch(
      /^Bandwidth order fulfilled[\s\S]*Fulfillment: from_the_future/,
    );
  });

  it("activation.confirmed names the address, the type and the order that needed it", () => {
    const { reply, text } = render(
      event("orders", {
        ...base,
        event: "activation.confirmed",
        order_id: "880001",
        order_type: "activation",
        address: ADDRESS,
        activation_type: "ACC_CREATE",
        source: "5M00000001ABCDEF",
      }),
    );
    expect(text).toContain("Activation order: 880001");
    expect(text).toContain("Type: account creation (ACC_CREATE)");
    expect(text).toContain("For: 5M00000001ABCDEF");
    expect(links(reply)).toEqual([`${EXPLORER}${H1}`]);
  });

  it("shows a value that is not a transaction hash as text, never as a link", () => {
    const { reply, text } = render(
      event("orders", {
        ...base,
        event: "delegation.confirmed",
        order_id: "5MX",
        tx_hashes: ["javascript:alert(1)"],
      }),
    );
    expect(links(reply)).toEqual([]);
    expect(text).toContain("javascript:alert(1)");
  });
});

describe("report webhooks", () => {
  it("report.ready: order number, format, size, expiry and checksum", () => {
    const { text } = render(
      event("reports", {
        ...base,
        event: "report.ready",
        order_id: "REPABCDEFGHIJKL",
        order_type: "statement",
        client_request_id: "stmt-1",
        status: "done",
        format: "csv",
        download_url: "/apiv2/reports/REPABCDEFGHIJKL/download",
        expires_at: "2025-03-31T12:00:05Z",
        artifact: { sha256: "c".repeat(64), size_bytes: 2_048 },
      }),
    );
    expect(text).toMatch(/^Statement ready/);
    expect(text).toContain("Order: REPABCDEFGHIJKL");
    expect(text).toContain("Format: csv");
    expect(text).toContain("Size: 2.0 KB");
    expect(text).toContain("Expires: 2025-03-31 12:00:05 UTC");
    expect(text).toContain(`SHA-256: ${"c".repeat(64)}`);
  });
});

describe("Host Mode callbacks", () => {
  const cycle = {
    address: ADDRESS,
    order_id: "T9000001",
    hash: H1,
    balance_after: "95.5000",
    idle_cycle: "0",
  };

  it("a cycle: address, delegation, charged, balance after and the hash linked", () => {
    const { reply, text } = render(callback({ ...cycle, energy_used: "65k", charged: "2.0000" }));
    expect(text).toContain(`Address: ${ADDRESS}`);
    expect(text).toContain("Delegation: T9000001");
    expect(text).toContain("Charged: 2 TRX");
    expect(text).toContain("Balance after: 95.5 TRX");
    expect(text).toContain("Cycle: previous transfer used at most 65,000 energy");
    expect(links(reply)).toEqual([`${EXPLORER}${H1}`]);
    expect(reply.summary).toBe(
      "Host Mode: energy delegated to TJRabPrw…RTv8, charged 2 TRX, balance 95.5 TRX",
    );
  });

  it("explains 131k, first/no-history and idle cycles", () => {
    expect(render(callback({ ...cycle, energy_used: "131k", charged: "4.0000" })).text).toContain(
      "more than 65,000 energy",
    );
    expect(render(callback({ ...cycle, charged: "4.0000" })).text).toContain(
      "first delegation, or no consumption history",
    );
    expect(render(callback({ ...cycle, idle_cycle: "1", charged: "4.0000" })).text).toContain(
      "idle re-delegation (24 h without a transfer)",
    );
  });

  it("host_paused with reason stopped", () => {
    const { text } = render(
      callback({
        event: "host_paused",
        address: ADDRESS,
        reason: "stopped",
        timestamp: "2025-03-01T12:00:05.000Z",
      }),
    );
    expect(text).toMatch(/^Host Mode paused\nHost Mode was stopped for TJRabPrwbZy45sbavfcjinPJC18kjpRTv8/);
    expect(text).toContain("At: 2025-03-01 12:00:05 UTC");
  });

  it("refuses callbacks without the parameters routing needs", () => {
    expect(parseHostCallback({ address: "not-an-address", order_id: "T1", hash: H1 }).kind).toBe("malformed");
    expect(parseHostCallback({ address: ADDRESS, hash: H1 }).kind).toBe("malformed");
    expect(parseHostCallback({ event: "host_paused", address: ADDRESS }).kind).toBe("malformed");
    expect(parseHostCallback({ event: "host_resumed", address: ADDRESS }).kind).toBe("unknown");
  });
});

describe("the alert channel", () => {
  it("says why the message landed there", () => {
    const reply = asAlert(
      renderNotification(
        event("orders", { ...base, event: "delegation.confirmed", order_id: "5MA" }),
        EXPLORER,
      ),
    );
    expect(replyText(reply)).toMatch(/No conversation of this bot is known for it[\s\S]*alert channel/);
  });
});
