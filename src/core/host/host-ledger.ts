import Big from "big.js";
import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorKey } from "../invocation.js";
import { whoName } from "../spend/confirmed.js";

/**
 * What the bot itself saw of an address's Host Mode, beside what the service's Time Status says:
 * who started it through the bot and when (one record per address, the latest start), and every
 * delegation cycle its callbacks reported (one hash field per delegation id, so a replayed callback
 * is counted once and two callbacks at once never lose each other). `host status` shows the cycles
 * seen since the start, the TRX they charged and the last one.
 */
const RUN_TTL_MS = 400 * 24 * 3_600_000;
/**
 * A cycle received at most this long before the start was written still counts as the run's: the
 * first delegation can be called back while the start's bookkeeping is being written.
 */
export const START_LEEWAY_MS = 2 * 60_000;

const runSchema = z.object({
  at: z.number(),
  by: z.string(),
  byKey: z.string(),
  confirmationId: z.string(),
});
type HostRun = z.infer<typeof runSchema>;

const cycleSchema = z.object({
  at: z.number(),
  orderId: z.string(),
  hash: z.string(),
  chargedTrx: z.string().optional(),
});
type SeenCycle = z.infer<typeof cycleSchema>;

const runKey = (address: string) => `host-run:${address}`;
const cyclesKey = (address: string) => `host-run-cycles:${address}`;

/** A start through the bot (a Confirm, its approval, its recovery or reconciler): the run begins now. */
export async function noteHostRunStarted(
  deps: Pick<CoreDeps, "store" | "now">,
  address: string,
  started: { actor: Actor; confirmationId: string },
): Promise<void> {
  const at = deps.now();
  const run: HostRun = {
    at,
    by: whoName(started.actor),
    byKey: actorKey(started.actor),
    confirmationId: started.confirmationId,
  };
  await setJson(deps.store, runKey(address), run, RUN_TTL_MS);
  // Cycles of an earlier run are forgotten, so the hash holds one run at most.
  const cycles = await readCycles(deps.store, address);
  for (const cycle of cycles) {
    if (cycle.at < at - START_LEEWAY_MS) await deps.store.hashDel(cyclesKey(address), cycle.orderId);
  }
}

/** A cycle callback (once per delegation id, however often it is delivered). */
export async function noteHostRunCycle(
  deps: Pick<CoreDeps, "store" | "now">,
  cycle: { address: string; order_id: string; hash: string; charged?: string | undefined },
): Promise<void> {
  const seen: SeenCycle = {
    at: deps.now(),
    orderId: cycle.order_id,
    hash: cycle.hash,
    ...(cycle.charged !== undefined && validTrx(cycle.charged) && { chargedTrx: cycle.charged }),
  };
  const key = cyclesKey(cycle.address);
  // A redelivered callback keeps the moment it was first seen.
  if ((await deps.store.hashGet(key, cycle.order_id)) !== null) return;
  await deps.store.hashSet(key, cycle.order_id, JSON.stringify(seen));
}

const validTrx = (value: string): boolean => /^\d{1,12}(\.\d{1,12})?$/.test(value);

async function readCycles(store: Store, address: string): Promise<SeenCycle[]> {
  const raw = await store.hashGetAll(cyclesKey(address));
  const cycles: SeenCycle[] = [];
  for (const value of Object.values(raw)) {
    try {
      const parsed = cycleSchema.safeParse(JSON.parse(value));
      if (parsed.success) cycles.push(parsed.data);
    } catch {
      // An unreadable field is skipped; the others still count.
    }
  }
  return cycles.sort((a, b) => a.at - b.at);
}

export interface HostLedger {
  run: HostRun;
  /** Cycles seen in callbacks since the start. */
  cycles: number;
  /** TRX those callbacks said they charged (a callback without `charged` adds nothing). */
  chargedTrx: string;
  /** How many of them did not say what they charged. */
  withoutAmount: number;
  last?: SeenCycle;
}

/** The bot's record of the address's latest start through the bot, or null when it never started it. */
export async function readHostLedger(store: Store, address: string): Promise<HostLedger | null> {
  const run = await getJson(store, runKey(address), runSchema);
  if (!run) return null;
  const cycles = (await readCycles(store, address)).filter((c) => c.at >= run.at - START_LEEWAY_MS);
  let charged = new Big(0);
  for (const c of cycles) if (c.chargedTrx !== undefined) charged = charged.plus(c.chargedTrx);
  const last = cycles.at(-1);
  return {
    run,
    cycles: cycles.length,
    chargedTrx: charged.toString(),
    withoutAmount: cycles.filter((c) => c.chargedTrx === undefined).length,
    ...(last && { last }),
  };
}
