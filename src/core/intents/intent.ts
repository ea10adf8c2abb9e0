import { randomBytes } from "node:crypto";
import type { Store } from "../../store/store.js";
import { type ActionRecord, CLAIM_KEY } from "../actions.js";
import type { IntentTimings } from "../deps.js";
import type { Invocation } from "../invocation.js";
import type { Reply } from "../reply.js";
import { decodeReply, type EncodedReply, encodeReply } from "../reply-codec.js";
import type { Role } from "../roles.js";

/**
 * A durable action's intent: what was confirmed, by whom, where. It is the value of the button
 * group's claim mark, so claiming and storing the intent are one atomic SET NX. Its progress
 * lives in three more keys: the run's lease (one runner at a time, renewed while it runs), the
 * outcome (the reply, once known) and the posted mark (the outcome reached the conversation).
 */
export const INTENT_TTL_MS = 24 * 60 * 60_000;
/**
 * The lease is short and renewed by its holder every third of it, so a holder that died (kill -9)
 * is known to be gone within seconds; a live holder renews it long before it could lapse. A
 * click's recovery job looks first just past the lease (`deadRunLookMs`): a run that died there is
 * taken over by whichever instance is up, at once; an outcome already stored gets `recoverAfterMs`
 * to reach the conversation through the instance that holds it (a slow platform) before it is posted.
 */
export const DEFAULT_INTENT_TIMINGS: IntentTimings = {
  recoverAfterMs: 30_000,
  leaseMs: 4_000,
  deadRunLookMs: 5_000,
};
/**
 * Enough to keep the service's busiest limit full (order5m: 50 calls/s, each answered in 0.5 to
 * 2 s), few enough that a burst of clicks costs no memory: the rest wait as jobs.
 */
export const DEFAULT_MAX_LOCAL_RUNS = 64;

type ActionInvocation = Extract<Invocation, { kind: "action" }>;

export interface Intent {
  v: 1;
  confirmationId: string;
  kind: string;
  payload: unknown;
  record: ActionRecord;
  invocation: ActionInvocation;
  /** The role of the user who confirmed, as checked at the click. */
  role: Role;
  claimedAt: number;
}

const outcomeKey = (cid: string) => `intent-outcome:${cid}`;
const postedKey = (cid: string) => `intent-posted:${cid}`;
const leaseKey = (cid: string) => `intent-lease:${cid}`;
const runKey = (cid: string) => `intent-run:${cid}`;
/** Confirmations not yet posted, by id (their claim time): what an instance looks at when it starts. */
const OPEN_KEY = "intents:open";
export const recoverJobId = (cid: string) => `recover-intent:${cid}`;
/** The job that carries out a confirmation handed over at its click (beside its recovery job). */
export const handoverJobId = (cid: string) => `recover-intent:${cid}:handover`;
/** The notifier's dedup key of an outcome posted by the recovery path. */
export const intentDedupKey = (cid: string) => `intent-outcome:${cid}`;

export async function readIntent(store: Store, cid: string): Promise<Intent | undefined> {
  const raw = await store.get(CLAIM_KEY(cid));
  if (raw === null || !raw.startsWith("{")) return undefined;
  try {
    const intent = JSON.parse(raw) as Intent;
    return intent.v === 1 && intent.confirmationId === cid ? intent : undefined;
  } catch {
    return undefined;
  }
}

export async function saveOutcome(store: Store, cid: string, reply: Reply): Promise<void> {
  await store.set(outcomeKey(cid), JSON.stringify(encodeReply(reply)), INTENT_TTL_MS);
}

export async function readOutcome(store: Store, cid: string): Promise<Reply | undefined> {
  const raw = await store.get(outcomeKey(cid));
  return raw === null ? undefined : decodeReply(JSON.parse(raw) as EncodedReply);
}

/**
 * True for the first run of a confirmation's handler; false when a run began before (its process
 * died, or its answer was lost), so the handler may find its own earlier effect at the service.
 */
export const isFirstRun = (store: Store, cid: string): Promise<boolean> =>
  store.setIfNotExists(runKey(cid), "1", INTENT_TTL_MS);

export async function markPosted(store: Store, cid: string): Promise<void> {
  await store.set(postedKey(cid), "1", INTENT_TTL_MS);
  await forgetOpen(store, cid);
}

export async function noteOpen(store: Store, cid: string, at: number): Promise<void> {
  await store.hashSet(OPEN_KEY, cid, String(at), INTENT_TTL_MS);
}

export const forgetOpen = (store: Store, cid: string): Promise<void> => store.hashDel(OPEN_KEY, cid);

/** Every confirmation noted open and not yet posted: id → when it was noted. */
export async function openIntents(store: Store): Promise<Map<string, number>> {
  return new Map(Object.entries(await store.hashGetAll(OPEN_KEY)).map(([cid, at]) => [cid, Number(at)]));
}

export const isPosted = async (store: Store, cid: string): Promise<boolean> =>
  (await store.get(postedKey(cid))) !== null;

export interface Lease {
  /** Stops renewing and lets the lease lapse after `leaseMs`, so a dead holder's work is taken over. */
  lapse(): Promise<void>;
  release(): Promise<void>;
}

/**
 * Takes the run lease of an intent, or answers undefined while someone else holds it. The holder
 * renews it every third of its life; the lease only expires when its holder stopped (died).
 */
export async function takeLease(store: Store, cid: string, leaseMs: number): Promise<Lease | undefined> {
  const owner = randomBytes(8).toString("hex");
  if (!(await store.setIfNotExists(leaseKey(cid), owner, leaseMs))) return undefined;
  const timer = setInterval(
    () => void store.set(leaseKey(cid), owner, leaseMs).catch(() => {}),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return {
    async lapse() {
      clearInterval(timer);
      await store.set(leaseKey(cid), owner, leaseMs).catch(() => {});
    },
    async release() {
      clearInterval(timer);
      if ((await store.get(leaseKey(cid))) === owner) await store.del(leaseKey(cid));
    },
  };
}
