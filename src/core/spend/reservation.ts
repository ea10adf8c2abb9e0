import Big from "big.js";
import { noteSpend } from "../balance/balance-cache.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { sunToTrx } from "../pricing/trx.js";
import { hostCyclesNote } from "./host-cycles-note.js";
import {
  dailyRefusal,
  perOrderRefusal,
  SPEND_TTL_MS,
  type SpendCheck,
  type SpendSettings,
  spendKey,
  trxToSun,
} from "./spend-guard.js";

/**
 * Spend reservations: the daily cap (OPS_DAILY_LIMIT_TRX) is checked and the quote added to the
 * day's total in ONE atomic store step when a spend is confirmed, so two Confirms at the same
 * instant can never both pass a check that only one fits. The hold is then settled with what
 * was really charged, or released when nothing was. Every step is keyed by the confirmation and
 * happens at most once, whichever instance, retry or recovery job runs it.
 *
 *   reserveSpend  (confirm)  → the quote counts toward the cap at once
 *   settleSpend   (charged)  → the hold is replaced by the charged amount
 *   releaseSpend  (refused, failed: nothing charged) → the hold is given back
 *
 * An outcome that is not known yet keeps its hold until the reconciler learns it.
 */
type Deps = Pick<CoreDeps, "store" | "now" | "observer">;

const HOLD_TTL_MS = SPEND_TTL_MS;
const holdKey = (confirmationId: string) => `spend-hold:${confirmationId}`;
const settledKey = (confirmationId: string) => `spend-recorded:${confirmationId}`;

interface Hold {
  /** The day total the hold was added to (the day of the confirmation). */
  key: string;
  sun: string;
  /** The requesting agent's day total, held the same amount (its budget). */
  agentKey?: string;
}

export interface ReserveSpendInput {
  confirmationId: string;
  actor: Actor | string;
  quoteTrx: string;
  settings: SpendSettings;
  /**
   * The agent that asked for it (`OPS_AGENT_TOKENS`): the spend is held against its day too, within
   * its daily budget when it has one, so its confirmed spend is what it was charged plus what is
   * held for what was confirmed and not charged yet.
   */
  agent?: { name: string; dailyTrx?: string };
}

/** Checks the caps and holds the quote against the day's total; ok again for a confirmation already held. */
export async function reserveSpend(deps: Deps, input: ReserveSpendInput): Promise<SpendCheck> {
  const quote = trxToSun(input.quoteTrx);
  const perOrder = perOrderRefusal(quote, input.settings);
  if (perOrder !== undefined) return { ok: false, line: perOrder };
  const { store } = deps;
  // A re-run of the same confirmation (a recovery after a crash) holds nothing twice.
  if ((await store.get(holdKey(input.confirmationId))) !== null) return { ok: true };
  if ((await store.get(settledKey(input.confirmationId))) !== null) return { ok: true };
  const key = spendKey(input.actor, deps.now());
  const sun = toSafeSun(quote, input.quoteTrx);
  if (sun > 0) {
    const limit = input.settings.dailyLimitTrx;
    if (limit === undefined) await store.incrBy(key, sun, SPEND_TTL_MS);
    else {
      const reserved = await store.reserveWithin(key, sun, toSafeSun(trxToSun(limit), limit), SPEND_TTL_MS);
      if (!reserved.ok) {
        const line = dailyRefusal(quote, new Big(reserved.total), limit);
        return { ok: false, line: `${line}${await hostCyclesNote(deps, input.actor)}` };
      }
    }
  }
  const agentKey = input.agent === undefined ? undefined : agentDayKey(input.agent.name, deps.now());
  if (input.agent !== undefined && agentKey !== undefined && sun > 0) {
    const refusal = await holdForAgent(deps, agentKey, sun, input.agent);
    if (refusal !== undefined) {
      // The agent's budget refuses it: the person's part of the hold is given back at once.
      await store.incrBy(key, -sun);
      return { ok: false, line: refusal };
    }
  }
  const hold: Hold = { key, sun: String(sun), ...(agentKey !== undefined && sun > 0 && { agentKey }) };
  await store.set(holdKey(input.confirmationId), JSON.stringify(hold), HOLD_TTL_MS);
  return { ok: true };
}

/**
 * Records what was charged, once per confirmation: the hold (if any) is replaced by `amountTrx`.
 * False when this confirmation was already settled.
 */
export async function settleSpend(
  deps: Deps,
  confirmationId: string,
  actor: Actor | string,
  amountTrx: string,
): Promise<boolean> {
  const charged = toSafeSun(trxToSun(amountTrx), amountTrx);
  if (!(await deps.store.setIfNotExists(settledKey(confirmationId), amountTrx, SPEND_TTL_MS))) return false;
  const hold = parseHold(await deps.store.take(holdKey(confirmationId)));
  if (hold === undefined) {
    if (charged > 0) await deps.store.incrBy(spendKey(actor, deps.now()), charged, SPEND_TTL_MS);
  } else if (charged !== Number(hold.sun)) {
    await deps.store.incrBy(hold.key, charged - Number(hold.sun), SPEND_TTL_MS);
    if (hold.agentKey !== undefined)
      await deps.store.incrBy(hold.agentKey, charged - Number(hold.sun), SPEND_TTL_MS);
  }
  // Quotes subtract it from the last balance reading instead of waiting for a new one.
  await noteSpend(deps, amountTrx);
  try {
    deps.observer?.spent?.({ actor: typeof actor === "string" ? actor : actorKey(actor), sun: charged });
  } catch {
    // Metrics never fail a recorded spend.
  }
  return true;
}

/** Gives the hold back (nothing was charged); a no-op when it was settled or released already. */
export async function releaseSpend(deps: Pick<Deps, "store">, confirmationId: string): Promise<void> {
  const hold = parseHold(await deps.store.take(holdKey(confirmationId)));
  if (hold !== undefined && Number(hold.sun) > 0) {
    await deps.store.incrBy(hold.key, -Number(hold.sun));
    if (hold.agentKey !== undefined) await deps.store.incrBy(hold.agentKey, -Number(hold.sun));
  }
}

/** `spend:agent:<name>:<day>`: what an agent's confirmed requests were charged and hold today. */
export const agentDayKey = (name: string, at: number): string => spendKey(`agent:${name}`, at);

/** The line of a spend past an agent's daily budget, or undefined when it fits. */
export function agentBudgetRefusal(
  quoteSun: Big,
  spentSun: Big,
  agent: { name: string; dailyTrx: string },
): string {
  const left = trxToSun(agent.dailyTrx).minus(spentSun);
  const limit = `agent ${agent.name}'s daily limit of ${agent.dailyTrx} TRX (OPS_AGENT_TOKENS, resets at 00:00 UTC)`;
  return left.lte(0)
    ? `This request would cost ${sunToTrx(quoteSun)} TRX, and ${limit} is used up.`
    : `This request would cost ${sunToTrx(quoteSun)} TRX, but only ${sunToTrx(left)} TRX is left today of ${limit}.`;
}

async function holdForAgent(
  deps: Deps,
  key: string,
  sun: number,
  agent: { name: string; dailyTrx?: string },
): Promise<string | undefined> {
  if (agent.dailyTrx === undefined) {
    await deps.store.incrBy(key, sun, SPEND_TTL_MS);
    return undefined;
  }
  const limit = toSafeSun(trxToSun(agent.dailyTrx), agent.dailyTrx);
  const reserved = await deps.store.reserveWithin(key, sun, limit, SPEND_TTL_MS);
  if (reserved.ok) return undefined;
  return agentBudgetRefusal(new Big(sun), new Big(reserved.total), {
    name: agent.name,
    dailyTrx: agent.dailyTrx,
  });
}

function parseHold(raw: string | null): Hold | undefined {
  if (raw === null) return undefined;
  try {
    const hold = JSON.parse(raw) as Partial<Hold>;
    return typeof hold.key === "string" && /^\d+$/.test(hold.sun ?? "") ? (hold as Hold) : undefined;
  } catch {
    return undefined;
  }
}

function toSafeSun(sun: Big, shown: string): number {
  const n = sun.toNumber();
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount too large to count: ${shown} TRX`);
  return n;
}
