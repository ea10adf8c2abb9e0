import { charge, MIN_BALANCE_SUN } from "../../accounts.js";
import type { SandboxContext } from "../../context.js";
import { ACTIVATION_SUN, ENERGY_1H_PERIODS, energyCostSun } from "../../price-book.js";
import type { Chain } from "./chain.js";
import { wait } from "./common.js";
import { type ItemStatus, isSettled, type OrchItem, type OrchOrder } from "./orchestrator-state.js";

/**
 * Works through an accepted order the way the spec describes: up to 5 addresses at a time, each
 * probe → activation → bandwidth → energy chunks, one step per `stepMs`. Charges happen per step.
 */

const PARALLEL = 5;
/** Large energy orders need no bandwidth top-up. */
const BANDWIDTH_SKIP_ABOVE = 600_000;

/** Faults a test can arrange for one address. `partial`: the last chunk fails (with one chunk: all). */
export interface OrchestratorFault {
  energy?: "failed" | "partial";
  activation?: "failed" | "unavailable";
  bandwidth?: "failed";
}

export function createWorker(ctx: SandboxContext, chain: Chain, options: { stepMs: number }) {
  const faults = new Map<string, OrchestratorFault>();
  const waiters = new Map<OrchOrder, Array<() => void>>();
  const step = () => wait(ctx, options.stepMs);

  function notifyIfSettled(order: OrchOrder): void {
    if (!isSettled(order)) return;
    for (const resolve of waiters.get(order) ?? []) resolve();
    waiters.delete(order);
  }

  function finish(order: OrchOrder, item: OrchItem, status: ItemStatus): void {
    item.status = status;
    item.finishedAt = ctx.now();
    const { delegated } = item.energy;
    item.energy.status = delegated === item.amount ? "done" : delegated > 0 ? "partial" : "failed";
    notifyIfSettled(order);
  }

  /** Balance below the minimum mid-batch: this address stops and the queued ones are not attempted. */
  function stopForBalance(order: OrchOrder, item: OrchItem): void {
    for (const other of order.items) {
      if (other.status === "queued") finish(order, other, "insufficient_balance");
    }
    finish(order, item, "insufficient_balance");
  }

  const revoked = (order: OrchOrder): boolean => {
    const current = ctx.accounts.byKey(order.account.apiKey);
    return !current || current.blocked;
  };

  function activationStep(order: OrchOrder, item: OrchItem): void {
    const address = item.receiveAddress;
    const fault = faults.get(address)?.activation;
    if (!chain.needsActivation(address)) item.activation.status = "not_needed";
    else if (!item.options.activation) item.activation.status = "skipped";
    else if (fault === "unavailable") item.activation.status = "skipped_unavailable";
    else if (fault === "failed" || !charge(order.account, ACTIVATION_SUN)) item.activation.status = "failed";
    else {
      const record = chain.activate(order.account, address, ACTIVATION_SUN, "orchestrator");
      item.activation = { status: "done", orderId: record.orderId, hash: record.hash };
      chain.announceActivation(order.account, record);
    }
  }

  /** The step's outcome without an order, or undefined when a bandwidth order is placed. */
  function bandwidthVerdict(item: OrchItem): Partial<OrchItem["bandwidth"]> | undefined {
    const { bandwidth, bandwidthAmount, check } = item.options;
    if (!bandwidth) return { status: "skipped", skipReason: "option_off" };
    if (item.amount > BANDWIDTH_SKIP_ABOVE) return { status: "skipped", skipReason: "energy_gt_600000" };
    if (check && chain.freeBandwidth(item.receiveAddress) >= bandwidthAmount) return { status: "enough" };
    if (faults.get(item.receiveAddress)?.bandwidth === "failed") return { status: "failed" };
    return undefined;
  }

  function bandwidthStep(order: OrchOrder, item: OrchItem): void {
    const verdict = bandwidthVerdict(item);
    if (verdict) return void Object.assign(item.bandwidth, verdict);
    const { bandwidthAmount, bandwidthPeriod, trx_send } = item.options;
    const free = chain.freeBandwidth(item.receiveAddress);
    const fulfillment = free >= bandwidthAmount ? "already_enough" : trx_send ? "trx_send" : "delegated";
    const record = chain.recordBandwidth(order.account, {
      address: item.receiveAddress,
      amount: bandwidthAmount,
      period: bandwidthPeriod,
      fulfillment,
    });
    const { orderId, amount, period, hashes } = record;
    Object.assign(item.bandwidth, { status: "done", orderId, amount, period, hashes: [...hashes] });
    chain.announceBandwidth(order.account, record);
  }

  /** One chunk: false when the balance ran out (the address stops). */
  function energyChunk(order: OrchOrder, item: OrchItem, index: number): boolean {
    const fault = faults.get(item.receiveAddress)?.energy;
    const last = index === item.chunks.length - 1;
    if (fault === "failed" || (fault === "partial" && last)) return true;
    const amount = item.chunks[index] as number;
    const cost = energyCostSun(ENERGY_1H_PERIODS, amount, ctx.now());
    if (order.account.balanceSun < MIN_BALANCE_SUN || !charge(order.account, cost)) return false;
    const record = chain.recordEnergyOrder(order.account, {
      period: "1h",
      receiveAddress: item.receiveAddress,
      amount,
      energy: amount,
      costSun: cost,
      source: "orchestrator",
    });
    item.energy.delegated += amount;
    item.energy.done += 1;
    item.energy.orderIds.push(record.orderId);
    item.energy.hashes.push(record.hash);
    chain.announceDelegation(order.account, record);
    return true;
  }

  async function run(order: OrchOrder, item: OrchItem): Promise<void> {
    item.attempts += 1;
    item.startedAt = ctx.now();
    if (order.account.balanceSun < MIN_BALANCE_SUN) return stopForBalance(order, item);
    await step(); // probe
    if (revoked(order)) return finish(order, item, "credentials_revoked");
    activationStep(order, item);
    await step();
    bandwidthStep(order, item);
    for (let index = 0; index < item.chunks.length; index++) {
      await step();
      if (revoked(order)) return finish(order, item, "credentials_revoked");
      if (!energyChunk(order, item, index)) return stopForBalance(order, item);
    }
    const { delegated } = item.energy;
    finish(order, item, delegated === item.amount ? "completed" : delegated > 0 ? "partial" : "failed");
  }

  function pump(order: OrchOrder): void {
    while (order.running < PARALLEL) {
      const next = order.items.find((item) => item.status === "queued");
      if (!next) break;
      next.status = "processing";
      order.running += 1;
      void run(order, next).finally(() => {
        order.running -= 1;
        pump(order);
      });
    }
  }

  return {
    /** Picks the order up after one step, so a cancel right after acceptance still finds it queued. */
    start(order: OrchOrder): void {
      ctx.timers.after(options.stepMs, () => pump(order));
    },
    notifyIfSettled,
    whenSettled(order: OrchOrder): Promise<void> {
      if (isSettled(order)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(order, [...(waiters.get(order) ?? []), resolve]));
    },
    setFault(address: string, fault: OrchestratorFault): void {
      faults.set(address, fault);
    },
  };
}
