import { charge, type SandboxAccount } from "../../accounts.js";
import { hex, type SandboxContext } from "../../context.js";
import { amlPriceSun } from "../../price-book.js";
import { type RiskResult, scoreAddress } from "./scorer.js";

type ScreeningStatus = "pending" | "processing" | "completed" | "failed" | "skipped";
/** pending: debited, check running; paid: check done; not_charged: skipped or reused; refunded: check failed. */
type PaymentStatus = "pending" | "paid" | "not_charged" | "refunded";

export interface ScreeningRecord {
  id: string;
  account: SandboxAccount;
  via: "v1" | "v2";
  address: string;
  network: string;
  provider: string;
  reportLanguage: string;
  responseFormat: "rate" | "full";
  status: ScreeningStatus;
  cacheHit: boolean;
  active: boolean;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  reason?: string;
  error?: string;
  /** The list price at creation, in SUN. */
  listSun: number;
  /** What was taken from the balance and not refunded. */
  chargedSun: number;
  paymentStatus: PaymentStatus;
  providerCheckId: string | null;
  result: RiskResult | null;
  /** Resolves when the order reaches a final state. */
  done: Promise<void>;
}

export interface OrderInput {
  account: SandboxAccount;
  via: "v1" | "v2";
  address: string;
  network: string;
  provider: string;
  reportLanguage?: string;
  responseFormat?: "rate" | "full";
}

/** What the simulated provider does with one address; the family's control sets these. */
export interface Behaviour {
  reuseWindowMs: number;
  durationFor(address: string): number;
  isInactive(address: string): boolean;
  fails(address: string): boolean;
  override(address: string): Partial<RiskResult> | undefined;
}

export type StartOutcome =
  | { ok: true; order: ScreeningRecord }
  | { ok: false; reason: "insufficient_balance" };

export function createOrderBook(ctx: SandboxContext, behaviour: Behaviour) {
  const orders = new Map<string, ScreeningRecord>();
  const settlers = new Map<string, () => void>();

  function newRecord(input: OrderInput): ScreeningRecord {
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    let id = `A${hex(14)}`;
    while (orders.has(id)) id = `A${hex(14)}`;
    const now = ctx.now();
    const record: ScreeningRecord = {
      id,
      account: input.account,
      via: input.via,
      address: input.address,
      network: input.network,
      provider: input.provider,
      reportLanguage: input.reportLanguage ?? "en",
      responseFormat: input.responseFormat ?? "full",
      status: "pending",
      cacheHit: false,
      active: true,
      createdAt: now,
      startedAt: now,
      completedAt: null,
      listSun: amlPriceSun(input.provider),
      chargedSun: 0,
      paymentStatus: "not_charged",
      providerCheckId: null,
      result: null,
      done,
    };
    orders.set(id, record);
    settlers.set(id, settle);
    return record;
  }

  function finalize(record: ScreeningRecord): void {
    record.completedAt ??= ctx.now();
    settlers.get(record.id)?.();
    settlers.delete(record.id);
  }

  /** The latest completed check of the same address and provider by the same account, inside the window. */
  function reusable(input: OrderInput): ScreeningRecord | undefined {
    const since = ctx.now() - behaviour.reuseWindowMs;
    let found: ScreeningRecord | undefined;
    for (const o of orders.values()) {
      if (o.account !== input.account || o.address !== input.address || o.provider !== input.provider)
        continue;
      if (o.status !== "completed" || (o.completedAt ?? 0) < since) continue;
      if (!found || (o.completedAt ?? 0) > (found.completedAt ?? 0)) found = o;
    }
    return found;
  }

  function skip(input: OrderInput): ScreeningRecord {
    const record = newRecord(input);
    Object.assign(record, { status: "skipped", active: false, startedAt: null, reason: "address_inactive" });
    finalize(record);
    return record;
  }

  function reuse(input: OrderInput, source: ScreeningRecord): ScreeningRecord {
    const record = newRecord(input);
    Object.assign(record, {
      status: "completed",
      cacheHit: true,
      result: source.result,
      providerCheckId: source.providerCheckId,
    });
    finalize(record);
    return record;
  }

  /** The provider's answer: failed (refunded) or completed with the (possibly overridden) finding. */
  function complete(record: ScreeningRecord): void {
    if (record.status !== "pending" && record.status !== "processing") return;
    record.providerCheckId = `chk_${hex(16)}`;
    if (behaviour.fails(record.address)) {
      record.status = "failed";
      record.error = "provider_error";
      refund(record);
    } else {
      record.status = "completed";
      record.result = { ...scoreAddress(record.address), ...behaviour.override(record.address) };
      record.paymentStatus = "paid";
    }
    finalize(record);
  }

  function refund(record: ScreeningRecord): void {
    record.account.balanceSun += record.chargedSun;
    record.account.totals.spentSun -= record.chargedSun;
    record.chargedSun = 0;
    record.paymentStatus = "refunded";
  }

  /** Creates an order as the service does: skip inactive, reuse a recent result, else charge and check. */
  function start(input: OrderInput): StartOutcome {
    if (behaviour.isInactive(input.address)) return { ok: true, order: skip(input) };
    const source = reusable(input);
    if (source) return { ok: true, order: reuse(input, source) };
    const price = amlPriceSun(input.provider);
    if (!charge(input.account, price)) return { ok: false, reason: "insufficient_balance" };
    const record = newRecord(input);
    record.chargedSun = price;
    record.paymentStatus = "pending";
    ctx.timers.after(behaviour.durationFor(input.address), () => complete(record));
    return { ok: true, order: record };
  }

  /** Resolves when the order is final or after `maxMs`, whichever comes first. */
  function waitFor(record: ScreeningRecord, maxMs: number): Promise<void> {
    if (record.status !== "pending" && record.status !== "processing") return Promise.resolve();
    return Promise.race([record.done, new Promise<void>((resolve) => ctx.timers.after(maxMs, resolve))]);
  }

  return {
    start,
    waitFor,
    get: (id: string) => orders.get(id),
    all: () => [...orders.values()],
  };
}

export type OrderBook = ReturnType<typeof createOrderBook>;

/** The remaining time of a pending check, for v1's `estimated_time_seconds`. */
export function secondsLeft(record: ScreeningRecord, durationMs: number, now: number): number {
  return Math.max(1, Math.ceil((record.createdAt + durationMs - now) / 1000));
}
