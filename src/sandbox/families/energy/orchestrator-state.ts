import type { SandboxAccount } from "../../accounts.js";
import { isoOffset } from "./common.js";
import type { ItemOptions } from "./orchestrator-validate.js";

/** One orchestrator order and its addresses, and how the service renders them. */

export type ItemStatus =
  | "queued"
  | "processing"
  | "completed"
  | "partial"
  | "failed"
  | "insufficient_balance"
  | "credentials_revoked"
  | "cancelled";

export const FINAL: ReadonlySet<ItemStatus> = new Set([
  "completed",
  "partial",
  "failed",
  "insufficient_balance",
  "credentials_revoked",
  "cancelled",
]);

export interface OrchItem {
  deliveryKey: number;
  trackingId: string;
  receiveAddress: string;
  amount: number;
  options: ItemOptions;
  chunks: number[];
  status: ItemStatus;
  // Step states: "pending" until the step ran (the spec lists only final step values).
  energy: { delegated: number; status: string; done: number; orderIds: string[]; hashes: string[] };
  activation: { status: string; orderId: string | null; hash: string | null };
  bandwidth: {
    status: string;
    orderId: string | null;
    amount: number | null;
    period: string | null;
    hashes: string[];
    skipReason: string | null;
  };
  attempts: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface OrchOrder {
  key: string;
  requestId: number;
  clientRequestId: string | null;
  account: SandboxAccount;
  /** Canonical JSON of the body, to tell a replay (208) from a conflict (4090). */
  fingerprint: string;
  acceptedAt: number;
  items: OrchItem[];
  running: number;
}

export const isSettled = (order: OrchOrder): boolean => order.items.every((item) => FINAL.has(item.status));

export function newItem(
  key: string,
  deliveryKey: number,
  valid: { receiveAddress: string; amount: number; options: ItemOptions },
  chunks: number[],
): OrchItem {
  return {
    deliveryKey,
    trackingId: `${key}:${valid.receiveAddress}`,
    receiveAddress: valid.receiveAddress,
    amount: valid.amount,
    options: valid.options,
    chunks,
    status: "queued",
    energy: { delegated: 0, status: "pending", done: 0, orderIds: [], hashes: [] },
    activation: { status: "pending", orderId: null, hash: null },
    bandwidth: { status: "pending", orderId: null, amount: null, period: null, hashes: [], skipReason: null },
    attempts: 0,
    startedAt: null,
    finishedAt: null,
  };
}

export function acceptedDetail(order: OrchOrder): Record<string, unknown> {
  return {
    code: 10202,
    status: "accepted",
    msg: "Order accepted and queued",
    data: {
      idempotencyKey: order.key,
      requestId: order.requestId,
      itemsAccepted: order.items.length,
      statusUrl: `/apiv2/orchestrator/status/${order.key}`,
      items: order.items.map((item) => ({
        deliveryKey: item.deliveryKey,
        trackingId: item.trackingId,
        receiveAddress: item.receiveAddress,
        amount: item.amount,
        energyChunks: item.chunks.length,
        activation: item.options.activation,
        bandwidth: item.options.bandwidth,
        status: "queued",
      })),
    },
  };
}

function renderItem(item: OrchItem): Record<string, unknown> {
  return {
    deliveryKey: item.deliveryKey,
    trackingId: item.trackingId,
    receiveAddress: item.receiveAddress,
    status: item.status,
    energy: {
      requested: item.amount,
      delegated: item.energy.delegated,
      status: item.energy.status,
      chunks: { total: item.chunks.length, done: item.energy.done },
      orderIds: [...item.energy.orderIds],
      hashes: [...item.energy.hashes],
    },
    activation: { ...item.activation },
    bandwidth: { ...item.bandwidth, hashes: [...item.bandwidth.hashes] },
    attempts: item.attempts,
    startedAt: item.startedAt === null ? null : isoOffset(item.startedAt),
    finishedAt: item.finishedAt === null ? null : isoOffset(item.finishedAt),
  };
}

function summary(order: OrchOrder): Record<string, number> {
  const counts: Record<string, number> = { total: order.items.length };
  const states: ItemStatus[] = ["queued", "processing", ...FINAL];
  for (const state of states) counts[state] = order.items.filter((i) => i.status === state).length;
  return counts;
}

function orderStatus(order: OrchOrder): string {
  if (order.items.every((i) => i.status === "cancelled")) return "cancelled";
  if (isSettled(order)) return "completed";
  return order.items.every((i) => i.status === "queued") ? "queued" : "processing";
}

export function statusDetail(order: OrchOrder, items: OrchItem[]): Record<string, unknown> {
  return {
    code: 10000,
    status: orderStatus(order),
    data: {
      idempotencyKey: order.key,
      requestId: order.requestId,
      clientRequestId: order.clientRequestId,
      summary: summary(order),
      items: items.map(renderItem),
    },
  };
}
