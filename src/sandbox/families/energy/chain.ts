import type { SandboxAccount } from "../../accounts.js";
import type { OutboundEvent, SandboxContext } from "../../context.js";
import { isoUtc, tronAddress, txHash } from "./common.js";

/**
 * The simulated network and order ledger shared by order5m and the orchestrator: which addresses
 * exist on-chain, which are contracts, their free bandwidth, every energy order and activation,
 * and the order webhooks each of them produces.
 */

type EnergyPeriod = "5m" | "1h";

export interface EnergyOrderRecord {
  orderId: string;
  period: EnergyPeriod;
  userId: number;
  receiveAddress: string;
  /** Energy requested. */
  amount: number;
  /** Energy delegated (order5m adds the free buffer). */
  energy: number;
  costSun: number;
  hash: string;
  delegateAddress: string;
  source: "order5m" | "orchestrator";
  createdAt: number;
}

export interface ActivationRecord {
  orderId: string;
  userId: number;
  address: string;
  costSun: number;
  hash: string;
  /** The energy order id that required it, or a service tag. */
  source: string;
  createdAt: number;
}

export interface BandwidthRecord {
  orderId: string;
  userId: number;
  address: string;
  amount: number;
  period: EnergyPeriod;
  fulfillment: "delegated" | "trx_send" | "already_enough";
  hashes: string[];
  createdAt: number;
}

const POOL_ADDRESSES = [tronAddress("pool-1"), tronAddress("pool-2"), tronAddress("pool-3")];
const RENTAL = { "5m": { label: "5 minutes", seconds: 300 }, "1h": { label: "1 hour", seconds: 3600 } };

export function createChain(ctx: SandboxContext, options: { webhookDelayMs: number }) {
  const inactive = new Set<string>();
  const contracts = new Set<string>();
  const freeBandwidth = new Map<string, number>();
  const orders: EnergyOrderRecord[] = [];
  const activations: ActivationRecord[] = [];
  const bandwidthOrders: BandwidthRecord[] = [];
  let nextOrder = 1;
  let nextActivation = 880_001;
  let nextBandwidth = 1;

  const announce = (account: SandboxAccount, event: OutboundEvent): void =>
    ctx.timers.after(options.webhookDelayMs, () => ctx.outbound.orderEvent(account, event));

  /** A contract exists on-chain by definition, so it never needs (or gets) an activation. */
  const needsActivation = (address: string): boolean => inactive.has(address) && !contracts.has(address);

  function recordEnergyOrder(
    account: SandboxAccount,
    init: Pick<EnergyOrderRecord, "period" | "receiveAddress" | "amount" | "energy" | "costSun" | "source">,
  ): EnergyOrderRecord {
    const prefix = init.period === "5m" ? "5M" : "1H";
    const order: EnergyOrderRecord = {
      ...init,
      orderId: `${prefix}${String(nextOrder++).padStart(8, "0")}${txHash().slice(0, 6).toUpperCase()}`,
      userId: account.userId,
      hash: txHash(),
      delegateAddress: POOL_ADDRESSES[nextOrder % POOL_ADDRESSES.length] as string,
      createdAt: ctx.now(),
    };
    orders.push(order);
    account.totals.delegations += 1;
    account.totals.energy += order.energy;
    return order;
  }

  /** Marks the address active (so it is charged once) and records the activation. */
  function activate(
    account: SandboxAccount,
    address: string,
    costSun: number,
    source: string,
  ): ActivationRecord {
    inactive.delete(address);
    const record: ActivationRecord = {
      orderId: String(nextActivation++),
      userId: account.userId,
      address,
      costSun,
      hash: txHash(),
      source,
      createdAt: ctx.now(),
    };
    activations.push(record);
    return record;
  }

  function recordBandwidth(
    account: SandboxAccount,
    init: Pick<BandwidthRecord, "address" | "amount" | "period" | "fulfillment">,
  ): BandwidthRecord {
    const record: BandwidthRecord = {
      ...init,
      orderId: `BW${String(nextBandwidth++).padStart(8, "0")}`,
      userId: account.userId,
      hashes: init.fulfillment === "already_enough" ? [] : [txHash()],
      createdAt: ctx.now(),
    };
    bandwidthOrders.push(record);
    return record;
  }

  function announceDelegation(account: SandboxAccount, order: EnergyOrderRecord): void {
    announce(account, {
      event: "delegation.confirmed",
      order_id: order.orderId,
      order_type: order.period,
      receive_address: order.receiveAddress,
      energy_amount: order.energy,
      tx_hashes: [order.hash],
      tx_hash: order.hash,
      confirmed_at: isoUtc(ctx.now()),
      delegation_timestamp: order.createdAt,
    });
  }

  function announceActivation(account: SandboxAccount, record: ActivationRecord): void {
    announce(account, {
      event: "activation.confirmed",
      order_id: record.orderId,
      order_type: "activation",
      address: record.address,
      activation_type: "ACC_CREATE",
      source: record.source,
      tx_hashes: [record.hash],
      confirmed_at: isoUtc(ctx.now()),
    });
  }

  function announceBandwidth(account: SandboxAccount, record: BandwidthRecord): void {
    announce(account, {
      event: "bandwidth.delegated",
      order_id: record.orderId,
      order_type: "bandwidth",
      rental_label: RENTAL[record.period].label,
      rental_seconds: RENTAL[record.period].seconds,
      receive_address: record.address,
      bandwidth_amount: record.amount,
      fulfillment: record.fulfillment,
      tx_hashes: record.hashes,
      confirmed_at: isoUtc(ctx.now()),
    });
  }

  return {
    needsActivation,
    isContract: (address: string) => contracts.has(address),
    freeBandwidth: (address: string) => freeBandwidth.get(address) ?? 0,
    recordEnergyOrder,
    activate,
    recordBandwidth,
    announceDelegation,
    announceActivation,
    announceBandwidth,
    control: {
      /** The address does not exist on-chain yet: orders activate it (and charge for it) first. */
      markInactive(address: string): void {
        inactive.add(address);
      },
      /** The address is a contract: it exists on-chain, so no activation is ever needed. */
      markContract(address: string): void {
        contracts.add(address);
      },
      /** Free bandwidth the orchestrator's probe finds (default 0). */
      setFreeBandwidth(address: string, units: number): void {
        freeBandwidth.set(address, units);
      },
      isActive: (address: string): boolean => !needsActivation(address),
      /** Every energy order, order5m and orchestrator chunks alike, oldest first. */
      orders: (): EnergyOrderRecord[] => [...orders],
      activations: (): ActivationRecord[] => [...activations],
      bandwidthOrders: (): BandwidthRecord[] => [...bandwidthOrders],
    },
  };
}

export type Chain = ReturnType<typeof createChain>;
