import type { Clock } from "../clock.js";
import type { AccountBook, SandboxAccount } from "./accounts.js";

/** An order or report event as the spec's "Events" section describes it (without delivery_id). */
export type OutboundEvent = Record<string, unknown> & { event: string };

/**
 * What the sandbox sends back to its clients: signed webhooks to the URLs registered in the two
 * webhook registries, and Host Mode GET callbacks. Implemented by `outbound.ts`.
 */
export interface Outbound {
  /** Queues an order webhook (delegation.confirmed, activation.confirmed, bandwidth.delegated) for the account. */
  orderEvent(account: SandboxAccount, event: OutboundEvent): void;
  /** Queues a report webhook (report.ready). */
  reportEvent(account: SandboxAccount, event: OutboundEvent): void;
  /** Sends a Host Mode callback: GET `callbackUrl` with the spec's query parameters. */
  hostCallback(callbackUrl: string, params: Record<string, string>): void;
  /** Resolves when every queued delivery has been attempted (tests). */
  idle(): Promise<void>;
  /** Everything queued so far, in order, with the outcome of its last attempt (tests). */
  history(): OutboundRecord[];
}

export interface OutboundRecord {
  kind: "order" | "report" | "host";
  /** The event body (order/report), or the callback's query parameters (host). */
  payload: Record<string, unknown>;
  /** Where it was sent last, after origin mapping; undefined when no endpoint was registered. */
  url?: string;
  /** HTTP status of the last attempt, "error" on a network failure, undefined while queued. */
  lastStatus?: number | "error";
  attempts: number;
}

/** Timers that die with the sandbox, so a closed sandbox never fires late. */
export interface Timers {
  after(ms: number, fn: () => void | Promise<void>): void;
  clear(): void;
}

export interface SandboxContext {
  now: Clock;
  accounts: AccountBook;
  outbound: Outbound;
  timers: Timers;
}

export function createTimers(): Timers {
  const pending = new Set<NodeJS.Timeout>();
  return {
    after(ms, fn) {
      const timer = setTimeout(() => {
        pending.delete(timer);
        void Promise.resolve()
          .then(fn)
          .catch(() => {});
      }, ms);
      timer.unref();
      pending.add(timer);
    },
    clear() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
  };
}

/** Random lowercase hex of `length` characters. */
export function hex(length: number): string {
  let out = "";
  while (out.length < length)
    out += Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  return out.slice(0, length);
}
