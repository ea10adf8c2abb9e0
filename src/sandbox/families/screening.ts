import type { SandboxContext } from "../context.js";
import type { Route } from "../router.js";
import { createCompliance } from "./screening/compliance.js";
import { DEMO_ADDRESSES, DEMO_SLOW_MS } from "./screening/demo-addresses.js";
import { createOrderBook, type ScreeningRecord } from "./screening/orders.js";
import { createV1Routes } from "./screening/routes-v1.js";
import { createV2Routes } from "./screening/routes-v2.js";
import { type RiskResult, scoreAddress } from "./screening/scorer.js";
import type { ScreeningState } from "./screening/state.js";

export { DEMO_ADDRESSES, tronAddressFrom } from "./screening/demo-addresses.js";
export type { ScreeningRecord } from "./screening/orders.js";
export type { RiskResult } from "./screening/scorer.js";

export interface ScreeningFamilyOptions {
  /** How long a check stays pending before it completes (default 3000 ms). */
  durationMs?: number;
  /** Per-address durations, e.g. a check slower than the synchronous wait. */
  slowAddresses?: Record<string, number>;
  /** Addresses that never had blockchain activity (skipped, not charged). */
  inactiveAddresses?: string[];
  /** Addresses whose check fails (refunded). */
  failingAddresses?: string[];
  /** The synchronous wait cap (the spec's 15 s); shorten it in tests. */
  maxWaitMs?: number;
  /** Result reuse window (the spec's 60 s). */
  reuseWindowMs?: number;
  /** Give the demo addresses (DEMO_ADDRESSES) their behaviour and deny-list entries (default true). */
  demoData?: boolean;
}

const MAX_WAIT_MS = 15_000;
const REUSE_WINDOW_MS = 60_000;

export function createScreeningFamily(ctx: SandboxContext, options: ScreeningFamilyOptions = {}) {
  const demo = options.demoData ?? true;
  let durationMs = options.durationMs ?? 3_000;
  let maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  const durations = new Map(Object.entries(options.slowAddresses ?? {}));
  const inactive = new Set(options.inactiveAddresses ?? []);
  const failing = new Set(options.failingAddresses ?? []);
  const overrides = new Map<string, Partial<RiskResult>>();
  if (demo) {
    if (!durations.has(DEMO_ADDRESSES.slow)) durations.set(DEMO_ADDRESSES.slow, DEMO_SLOW_MS);
    inactive.add(DEMO_ADDRESSES.inactive);
    failing.add(DEMO_ADDRESSES.failing);
  }
  const durationFor = (address: string): number => durations.get(address) ?? durationMs;

  const book = createOrderBook(ctx, {
    reuseWindowMs: options.reuseWindowMs ?? REUSE_WINDOW_MS,
    durationFor,
    isInactive: (address) => inactive.has(address),
    fails: (address) => failing.has(address),
    override: (address) => overrides.get(address),
  });
  const state: ScreeningState = {
    ctx,
    book,
    maxWaitMs: () => maxWaitMs,
    durationFor,
    unavailable: new Map(),
  };
  const compliance = createCompliance(ctx, { seed: demo });
  const routes: Route[] = [...createV2Routes(state), ...createV1Routes(state), ...compliance.routes];

  const control = {
    ...compliance.control,
    /** Marks an address as never active: its checks are skipped and not charged. */
    setInactive(address: string, value = true): void {
      if (value) inactive.add(address);
      else inactive.delete(address);
    },
    /** Sets the default duration, or one address's duration when `address` is given. */
    setDuration(ms: number, address?: string): void {
      if (address === undefined) durationMs = ms;
      else durations.set(address, ms);
    },
    setMaxWait(ms: number): void {
      maxWaitMs = ms;
    },
    /** Replaces parts of the deterministic finding for an address (applies to checks completing later). */
    setResult(address: string, partial: Partial<RiskResult>): void {
      overrides.set(address, partial);
    },
    /** Makes checks of an address fail (status failed, charge refunded). */
    setFails(address: string, value = true): void {
      if (value) failing.add(address);
      else failing.delete(address);
    },
    /** Takes a provider out of service: lists show available=false with `reason`, orders get 5030. */
    setProviderAvailable(provider: string, available: boolean, reason = "quota_exhausted"): void {
      if (available) state.unavailable.delete(provider);
      else state.unavailable.set(provider, reason);
    },
    /** The deterministic finding the sandbox gives an address, before overrides. */
    scoreOf: (address: string): RiskResult => scoreAddress(address),
    order: (clientOrderId: string): ScreeningRecord | undefined => book.get(clientOrderId),
    orders: (): ScreeningRecord[] => book.all(),
    demoAddresses: DEMO_ADDRESSES,
  };
  return { routes, control };
}
