import type { SandboxContext } from "../context.js";
import { HOST_CYCLE_SUN } from "../price-book.js";
import type { Route } from "../router.js";
import { createChain } from "./energy/chain.js";
import { createHostMode } from "./energy/host-mode.js";
import { createOrchestrator } from "./energy/orchestrator.js";
import { createOrder5m } from "./energy/order5m.js";

/** Delays of the energy family; tests make them small. */
export interface EnergyFamilyOptions {
  /** How long an order5m takes to deliver (spec: usually 0.5 to 2 s). Default 800. */
  order5mLatencyMs?: number;
  /** Duration of each orchestrator step (probe, activation, bandwidth, each chunk). Default 1000. */
  orchestratorStepMs?: number;
  /** From infinity start to the first Host Mode delegation. Default 3000. */
  hostFirstCycleMs?: number;
  /** From a confirmed order to its order webhook(s). Default 500. */
  webhookDelayMs?: number;
  /** Window in which an identical order5m without a key is the same order. Default 2000 (the spec's). */
  duplicateWindowMs?: number;
  /** Balance needed to start infinity mode (default: one first cycle, 4 TRX). */
  hostStartRequiredSun?: number;
}

/**
 * The energy family of the simulated service: 5-minute orders, the batch orchestrator and Host
 * Mode, over one simulated network (inactive addresses, contracts, free bandwidth) and order ledger.
 */
export function createEnergyFamily(ctx: SandboxContext, options: EnergyFamilyOptions = {}) {
  const chain = createChain(ctx, { webhookDelayMs: options.webhookDelayMs ?? 500 });
  const order5m = createOrder5m(ctx, chain, {
    latencyMs: options.order5mLatencyMs ?? 800,
    duplicateWindowMs: options.duplicateWindowMs ?? 2_000,
  });
  const orchestrator = createOrchestrator(ctx, chain, { stepMs: options.orchestratorStepMs ?? 1_000 });
  const hostMode = createHostMode(ctx, {
    firstCycleMs: options.hostFirstCycleMs ?? 3_000,
    startRequiredSun: options.hostStartRequiredSun ?? HOST_CYCLE_SUN.first,
  });
  const routes: Route[] = [...order5m.routes, ...orchestrator.routes, ...hostMode.routes];
  const control = {
    ...chain.control,
    ...order5m.control,
    ...orchestrator.control,
    ...hostMode.control,
    /** Pools at capacity: order5m and orchestrator acceptance answer 503 code 5003. */
    setPoolsAtCapacity(on: boolean): void {
      order5m.control.setPoolsAtCapacity(on);
      orchestrator.control.setOrchestratorUnavailable(on);
    },
  };
  return { routes, control };
}
