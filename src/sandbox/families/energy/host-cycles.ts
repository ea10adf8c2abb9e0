import { charge, type SandboxAccount } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { HOST_CYCLE_SUN } from "../../price-book.js";
import { isoUtc, trx4, txHash } from "./common.js";

/**
 * Host Mode registrations and their delegation cycles: who owns an address, whether infinity mode
 * runs, what each cycle charged, and the GET callback each cycle (and a stop) sends.
 */

export interface HostCycle {
  /** Callback `order_id`: `T` plus the internal delegation id. */
  orderId: string;
  hash: string;
  chargedSun: number;
  balanceAfterSun: number;
  energyUsed?: "65k" | "131k";
  idle: boolean;
  at: number;
}

export interface HostAddress {
  address: string;
  account: SandboxAccount;
  callbackUrl: string | null;
  status: "inactive" | "active";
  mode: "infinity" | null;
  /** The open infinity order. */
  orderId: number | null;
  /** A fixed-cycle order left open (infinitystart answers -6). */
  openOrder: boolean;
  usedCycles: number;
  cycles: HostCycle[];
  /** Bumped on every start and stop, so a first cycle scheduled before a stop never runs. */
  generation: number;
  createdAt: number;
}

export interface HostCycleRequest {
  /** Energy the previous transfer used: 65k → 2 TRX, 131k → 4 TRX; absent → no history, 4 TRX. */
  energyUsed?: "65k" | "131k";
  /** Idle re-delegation after 24 h without a transfer: 4 TRX, idle_cycle=1. */
  idle?: boolean;
}

export type HostFailure = { code: number; msg: string };

export function createHostCycles(
  ctx: SandboxContext,
  options: { firstCycleMs: number; startRequiredSun: number },
) {
  const registry = new Map<string, HostAddress>();
  let startRequiredSun = options.startRequiredSun;
  let nextOrderId = 70_001;
  let nextDelegation = 9_000_001;

  function cyclePrice(kind: HostCycleRequest & { first?: boolean }): number {
    if (kind.first) return HOST_CYCLE_SUN.first;
    if (kind.idle) return HOST_CYCLE_SUN.idle;
    if (kind.energyUsed === "65k") return HOST_CYCLE_SUN.le65k;
    return HOST_CYCLE_SUN.gt65k;
  }

  /** Charges and delegates one cycle; undefined when the balance does not cover it. */
  function runCycle(entry: HostAddress, kind: HostCycleRequest & { first?: boolean }): HostCycle | undefined {
    const price = cyclePrice(kind);
    if (!charge(entry.account, price)) return undefined;
    const energyUsed = kind.first || kind.idle ? undefined : kind.energyUsed;
    const cycle: HostCycle = {
      orderId: `T${nextDelegation++}`,
      hash: txHash(),
      chargedSun: price,
      balanceAfterSun: entry.account.balanceSun,
      energyUsed,
      idle: kind.idle === true,
      at: ctx.now(),
    };
    entry.cycles.push(cycle);
    entry.usedCycles += 1;
    entry.account.totals.delegations += 1;
    if (entry.callbackUrl) {
      const params: Record<string, string> = {
        address: entry.address,
        order_id: cycle.orderId,
        hash: cycle.hash,
        balance_after: trx4(cycle.balanceAfterSun),
        idle_cycle: cycle.idle ? "1" : "0",
        charged: trx4(price),
      };
      if (energyUsed) params.energy_used = energyUsed;
      ctx.outbound.hostCallback(entry.callbackUrl, params);
    }
    return cycle;
  }

  /** Opens an infinity order; the first delegation (4 TRX) follows after `firstCycleMs`. */
  function startInfinity(entry: HostAddress): HostFailure | undefined {
    if (entry.status === "active") return { code: -5, msg: "Host mode is already active for this address" };
    if (entry.openOrder) return { code: -6, msg: "There is already an open order for this address" };
    const available = entry.account.balanceSun;
    if (available < startRequiredSun) {
      return {
        code: -2,
        msg: `Insufficient balance. Required: ${trx4(startRequiredSun)} TRX, available: ${trx4(available)} TRX`,
      };
    }
    entry.status = "active";
    entry.mode = "infinity";
    entry.orderId = nextOrderId++;
    entry.usedCycles = 0;
    const generation = ++entry.generation;
    ctx.timers.after(options.firstCycleMs, () => {
      if (entry.generation === generation && entry.status === "active") runCycle(entry, { first: true });
    });
    return undefined;
  }

  /** Closes open orders, resets the used-cycle counter and notifies the callback; returns orders closed. */
  function stop(entry: HostAddress): number {
    const closed = (entry.orderId !== null ? 1 : 0) + (entry.openOrder ? 1 : 0);
    Object.assign(entry, { status: "inactive", mode: null, orderId: null, openOrder: false, usedCycles: 0 });
    entry.generation += 1;
    if (entry.callbackUrl) {
      ctx.outbound.hostCallback(entry.callbackUrl, {
        event: "host_paused",
        address: entry.address,
        reason: "stopped",
        timestamp: isoUtc(ctx.now()),
      });
    }
    return closed;
  }

  function register(account: SandboxAccount, address: string, callbackUrl: string | null): HostAddress {
    const entry: HostAddress = {
      address,
      account,
      callbackUrl,
      status: "inactive",
      mode: null,
      orderId: null,
      openOrder: false,
      usedCycles: 0,
      cycles: [],
      generation: 0,
      createdAt: ctx.now(),
    };
    registry.set(address, entry);
    return entry;
  }

  return {
    registry,
    register,
    startInfinity,
    stop,
    control: {
      /** Runs the next delegation cycle of an active address now (charged and called back). */
      hostCycle(address: string, request: HostCycleRequest = {}): HostCycle {
        const entry = registry.get(address);
        if (entry?.status !== "active") throw new Error(`host address ${address} is not active`);
        const cycle = runCycle(entry, request);
        if (!cycle) throw new Error(`balance does not cover the next cycle of ${address}`);
        return cycle;
      },
      /** Leaves a fixed-cycle order open on a registered address (infinitystart then answers -6). */
      openHostOrder(address: string): void {
        const entry = registry.get(address);
        if (!entry) throw new Error(`host address ${address} is not registered`);
        entry.openOrder = true;
      },
      /** Balance needed to start infinity mode (default: one first cycle, 4 TRX). */
      setHostStartRequirement(sun: number): void {
        startRequiredSun = sun;
      },
      hostAddress: (address: string): HostAddress | undefined => registry.get(address),
      hostAddresses: (): HostAddress[] => [...registry.values()],
    },
  };
}
