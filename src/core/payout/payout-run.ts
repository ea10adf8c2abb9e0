import { z } from "zod";
import { getJson, setJsonIfNotExists } from "../../store/store-json.js";
import { createAction } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import { type Actor, actorSchema, conversationRefSchema } from "../invocation.js";
import { payoutOptionsSchema } from "./payout-options.js";
import { PAYOUT_CANCEL_KIND } from "./payout-payload.js";

/**
 * A confirmed payout run, by its orchestrator key: who confirmed it, where its progress message
 * is (the quote's message, edited in place) and where its follow-ups go (that message's thread),
 * what was quoted, and its Cancel button. Written once (a recovery re-run finds the first one);
 * what changes later lives in keys of its own, so the poll and a Cancel never overwrite each other.
 */
const RUN_TTL_MS = 3 * 24 * 60 * 60_000;
/** As long as the run is polled: a Cancel stays possible while any address is queued. */
const CANCEL_TTL_MS = 6 * 60 * 60_000;

const payoutRunSchema = z.object({
  key: z.string(),
  confirmationId: z.string(),
  actor: actorSchema,
  conversation: conversationRefSchema,
  followUp: conversationRefSchema,
  /** The progress message (the quote's, replaced by the Confirm's answer); absent on the console. */
  messageId: z.string().optional(),
  items: z.array(z.object({ address: z.string(), amount: z.number().int() })),
  options: payoutOptionsSchema,
  quoteTrx: z.string(),
  /** Each item's cost at the price decided at Confirm, in the order of `items`. */
  itemTrx: z.array(z.string()).optional(),
  energy: z.number().int(),
  leftOut: z.number().int(),
  cancelToken: z.string(),
  confirmedAt: z.number(),
});
export type PayoutRun = z.infer<typeof payoutRunSchema>;

const runKey = (key: string) => `payout-run:${key}`;
const cancelledKey = (key: string) => `payout-cancelled:${key}`;
const progressKey = (key: string) => `payout-progress:${key}`;
const finalKey = (key: string) => `payout-final:${key}`;

export const readRun = (deps: Pick<CoreDeps, "store">, key: string): Promise<PayoutRun | null> =>
  getJson(deps.store, runKey(key), payoutRunSchema);

/** Stores the run once, with its Cancel button; a second call (a recovery) answers the first run. */
export async function openRun(
  deps: Pick<CoreDeps, "store" | "now">,
  run: Omit<PayoutRun, "cancelToken" | "confirmedAt">,
): Promise<PayoutRun> {
  const existing = await readRun(deps, run.key);
  if (existing) return existing;
  const cancelToken = await createAction(deps.store, {
    kind: PAYOUT_CANCEL_KIND,
    payload: { idempotencyKey: run.key },
    role: "operator",
    conversation: run.conversation,
    createdBy: run.actor,
    ttlMs: CANCEL_TTL_MS,
    now: deps.now,
  });
  const full: PayoutRun = { ...run, cancelToken, confirmedAt: deps.now() };
  if (await setJsonIfNotExists(deps.store, runKey(run.key), full, RUN_TTL_MS)) return full;
  return (await readRun(deps, run.key)) ?? full;
}

const cancelMarkSchema = z.object({ by: actorSchema, at: z.number(), cancelled: z.number().int() });
export type CancelMark = z.infer<typeof cancelMarkSchema>;

export async function markCancelled(
  deps: Pick<CoreDeps, "store" | "now">,
  key: string,
  by: Actor,
  cancelled: number,
): Promise<void> {
  await setJsonIfNotExists(deps.store, cancelledKey(key), { by, at: deps.now(), cancelled }, RUN_TTL_MS);
}

export const readCancelled = (deps: Pick<CoreDeps, "store">, key: string): Promise<CancelMark | null> =>
  getJson(deps.store, cancelledKey(key), cancelMarkSchema);

/** True when `fingerprint` differs from the last progress shown (and records it). */
export async function progressChanged(
  deps: Pick<CoreDeps, "store">,
  key: string,
  fingerprint: string,
): Promise<boolean> {
  if ((await deps.store.get(progressKey(key))) === fingerprint) return false;
  await deps.store.set(progressKey(key), fingerprint, RUN_TTL_MS);
  return true;
}

/** True once per run: its final outcome is audited and counted once, whoever polls it. */
export const firstFinal = (deps: Pick<CoreDeps, "store">, key: string): Promise<boolean> =>
  deps.store.setIfNotExists(finalKey(key), "1", RUN_TTL_MS);
