import { z } from "zod";
import { userinfoSchema } from "../../service/account.js";
import { isServiceError } from "../../service/errors.js";
import type { StoreReads } from "../../store/read-ahead.js";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";

/**
 * The one reader of `GET /apiv2/userinfo` (6 a minute per IP, shared by every instance): quotes
 * and the `balance` command never call it themselves, they start this refresh and use the last
 * reading meanwhile. One refresh at a time across instances (a store lock), joined by every caller
 * of this process while it runs. The reading is stored with the bot's spend counter as it was
 * just before the read, so a later quote subtracts exactly the spends recorded since.
 */
const BALANCE_KEY = "balance:userinfo";
/** SUN this bot recorded as spent, ever (see `noteSpend`): only differences of it are used. */
export const SPENT_KEY = "balance:spent-sun";
const REFRESH_LOCK_KEY = "balance:userinfo:refresh";
/** The last reading stays usable (with its age) this long. */
const KEEP_MS = 30 * 60_000;
/**
 * Longer than one refresh can take: a minute in the limiter, a 10 s timeout, the transport's
 * retries; the lock is freed as soon as the refresh ends, so this only matters after a crash.
 */
const REFRESH_LOCK_MS = 90_000;

const snapshotSchema = z.object({
  fetchedAt: z.number(),
  info: userinfoSchema,
  /** SPENT_KEY just before the read; absent in readings of older versions. */
  spentSun: z.number().optional(),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/** What a caller learns at once: the new reading, a failure, or that no slot is free for `waitMs`. */
type FirstOutcome =
  | { kind: "read"; snapshot: Snapshot }
  | { kind: "failed"; error: unknown }
  | { kind: "no_slot"; waitMs: number };

export interface Refresh {
  /** Settles as soon as the outcome is known; a `no_slot` refresh goes on waiting for its slot. */
  first: Promise<FirstOutcome>;
  /** The stored reading once the refresh ends (rejects when it failed). */
  done: Promise<Snapshot>;
}

type RefreshDeps = Pick<CoreDeps, "service" | "store" | "logger" | "now">;

const running = new WeakMap<Store, Refresh>();

/** The store keys a balance estimate reads (the last reading, the spend counter). */
export const BALANCE_KEYS: readonly string[] = [BALANCE_KEY, SPENT_KEY];

export const readSnapshot = (store: Pick<StoreReads, "get">): Promise<Snapshot | null> =>
  getJson(store, BALANCE_KEY, snapshotSchema);

export async function spentSunSoFar(store: Pick<StoreReads, "get">): Promise<number> {
  return Number((await store.get(SPENT_KEY)) ?? 0);
}

const noFreeSlot = (error: unknown): number | undefined =>
  isServiceError(error) && error.code === "no_free_slot" ? (error.retryAfterMs ?? 0) : undefined;

async function read(deps: RefreshDeps, onNoSlot: (waitMs: number) => void): Promise<Snapshot> {
  let spentSun = await spentSunSoFar(deps.store);
  let info: z.infer<typeof userinfoSchema>;
  try {
    info = await deps.service.account.userinfo({ maxLimiterWaitMs: 0 });
  } catch (error) {
    const waitMs = noFreeSlot(error);
    if (waitMs === undefined) throw error;
    onNoSlot(waitMs);
    // Within the limit: this waits for the slot, with no one waiting on it.
    spentSun = await spentSunSoFar(deps.store);
    info = await deps.service.account.userinfo();
  }
  const snapshot: Snapshot = { fetchedAt: deps.now(), info, spentSun };
  await setJson(deps.store, BALANCE_KEY, snapshot, KEEP_MS);
  return snapshot;
}

/**
 * Starts a refresh, or joins the one this process runs; undefined when another instance holds
 * the lock (its reading lands in the store for the next caller).
 */
export async function startBalanceRefresh(deps: RefreshDeps): Promise<Refresh | undefined> {
  const current = running.get(deps.store);
  if (current) return current;
  if (!(await deps.store.setIfNotExists(REFRESH_LOCK_KEY, "1", REFRESH_LOCK_MS))) return undefined;
  // Another caller of this process may have started one while the lock was being taken.
  const raced = running.get(deps.store);
  if (raced) return raced;
  let settleFirst: (outcome: FirstOutcome) => void = () => {};
  const first = new Promise<FirstOutcome>((resolve) => {
    settleFirst = resolve;
  });
  const done = read(deps, (waitMs) => settleFirst({ kind: "no_slot", waitMs })).finally(() => {
    running.delete(deps.store);
    void deps.store.del(REFRESH_LOCK_KEY).catch(() => {});
  });
  done.then(
    (snapshot) => settleFirst({ kind: "read", snapshot }),
    (error: unknown) => {
      settleFirst({ kind: "failed", error });
      deps.logger.warn({ err: error }, "balance refresh (userinfo) failed; the last reading stays in use");
    },
  );
  const refresh = { first, done };
  running.set(deps.store, refresh);
  return refresh;
}
