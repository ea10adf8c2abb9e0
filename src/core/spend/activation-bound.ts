import Big from "big.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { Store } from "../../store/store.js";
import type { CoreDeps } from "../deps.js";
import { formatAmount } from "../format.js";
import { sunToTrx, trxToSun } from "../pricing/trx.js";

/**
 * What an energy order may cost beyond its quote: the activation of an address not yet active on
 * the network, which the service adds to the order (charged once per address; `paidTRX` includes
 * it and the answer carries `activationHash`). The service publishes no price for it, so the bound
 * is what it has charged: the largest fee seen on an order that activated an address (its
 * `paidTRX` minus the energy quoted), kept in the store for every instance. An address this bot
 * has seen receive energy is active for good and holds nothing extra.
 *
 * The caps (per order, daily, the approval threshold, an agent's budget) hold for the quote plus
 * that bound, or OPS_ACTIVATION_TRX when it is larger (the bound before any order has shown the
 * fee; 0 when the operator chooses to hold nothing for it). With neither and a cap set, an order
 * that may activate is refused rather than held at a guess (check-at-quote.ts,
 * `activationUnknownLine`); without caps there is nothing to hold.
 */
const ACTIVE_KEY = (address: string) => `activation:active:${address}`;
const FEE_KEY = "activation:fee-sun";
/** TRON accounts are never deactivated; a year keeps the store from holding every address forever. */
const KEEP_MS = 366 * 24 * 60 * 60_000;

/** What the caps hold for a quote: the quote plus the activation fee it may carry. */
export const heldTrx = (costTrx: string, feeTrx: string | undefined): string =>
  feeTrx === undefined ? costTrx : new Big(costTrx).plus(feeTrx).toFixed();

/** What the caps hold at Confirm for a live quote (`holdTrx` when it may carry an activation). */
export const heldOf = (quote: { costTrx: string; holdTrx?: string | undefined }): string =>
  quote.holdTrx ?? quote.costTrx;

/** "+ up to 1.1 TRX if the address is not active yet", beside the quote's cost. */
export const activationNote = (feeTrx: string): string =>
  `+ up to ${formatAmount(feeTrx)} if the address is not active yet`;

/** After a cap's line: what the held amount is made of. */
export const heldLine = (costTrx: string, feeTrx: string): string =>
  `That is ${formatAmount(costTrx)} ${activationNote(feeTrx)}.`;

/**
 * What an order's answer teaches: its address is active now, and, when it activated the address
 * (`activationHash`), the fee (what was paid beyond the energy quoted) if it is the largest seen.
 */
export async function learnFromOrder(
  store: Store,
  order: {
    address: string;
    energyTrx: string;
    paidTrx: string | number;
    activationHash?: string | undefined;
  },
): Promise<void> {
  await store.set(ACTIVE_KEY(order.address), "1", KEEP_MS);
  if (!order.activationHash) return;
  const feeSun = trxToSun(String(order.paidTrx)).minus(trxToSun(order.energyTrx));
  if (feeSun.lte(0)) return;
  const known = await store.get(FEE_KEY);
  if (known === null || feeSun.gt(known)) await store.set(FEE_KEY, feeSun.toFixed(0));
}

/**
 * What the caps hold for activating the addresses not known active: the fee once for each, the
 * fee being the largest an order showed or OPS_ACTIVATION_TRX, whichever is larger. `none`: every
 * address is known active; `fee-unknown`: some may need it and no fee is known or set.
 */
export type ActivationHold = { kind: "none" } | { kind: "fee"; feeTrx: string } | { kind: "fee-unknown" };

/** The store keys `activationBoundOf` reads for `addresses`. */
export const activationKeys = (addresses: readonly string[]): string[] =>
  addresses.length === 0 ? [] : [FEE_KEY, ...addresses.map(ACTIVE_KEY)];

export async function activationBoundOf(
  deps: Pick<CoreDeps, "store" | "settings">,
  addresses: readonly string[],
  reads: StoreReads = deps.store,
): Promise<ActivationHold> {
  if (addresses.length === 0) return { kind: "none" };
  const [fee, ...active] = await reads.getMany(activationKeys(addresses));
  const unknown = active.filter((mark) => mark === null || mark === undefined).length;
  if (unknown === 0) return { kind: "none" };
  const learned = fee === null || fee === undefined ? undefined : new Big(fee);
  const { activationTrx } = deps.settings;
  const set = activationTrx === undefined ? undefined : trxToSun(activationTrx);
  const bound = learned === undefined ? set : set === undefined || learned.gte(set) ? learned : set;
  if (bound === undefined) return { kind: "fee-unknown" };
  if (bound.eq(0)) return { kind: "none" };
  return { kind: "fee", feeTrx: sunToTrx(bound.times(unknown)) };
}

/** Whether a cap would have to hold an activation fee: one is set (an agent's budget included). */
export const capsHoldActivation = (settings: CoreDeps["settings"], agent?: string): boolean =>
  settings.maxOrderTrx !== undefined ||
  settings.dailyLimitTrx !== undefined ||
  settings.approvalTrx !== undefined ||
  (agent !== undefined && settings.agentDailyTrx[agent] !== undefined);

/** The refusal of a quote whose activation no cap can hold: no fee seen yet and OPS_ACTIVATION_TRX unset. */
export const activationUnknownLine = (addresses: number): string =>
  `${addresses === 1 ? "This address" : "Some of these addresses"} may need activation, at a price the bot has not seen yet, so the spending caps cannot hold it: set OPS_ACTIVATION_TRX to the most an activation may cost (0 holds nothing), then quote again.`;

/** An address seen receiving energy (an orchestrator item, a delivery) is active. */
export async function noteActive(store: Store, address: string): Promise<void> {
  await store.set(ACTIVE_KEY(address), "1", KEEP_MS);
}
