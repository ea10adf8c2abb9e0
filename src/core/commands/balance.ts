import { z } from "zod";
import { type Userinfo, userinfoSchema } from "../../service/account.js";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { type BalanceView, renderBalance } from "../render/balance.js";
import { errorReply } from "../reply.js";
import { withRunway } from "../runway/render.js";

/**
 * `balance`: the account's balance and usage. `GET /apiv2/userinfo` allows 6 calls a minute per
 * IP, shared by every instance of the bot, so the answer is kept in the store: a copy younger
 * than `freshMs` is served as is; an older one is refreshed, but when the refresh cannot finish
 * within `waitForFreshMs` (the rate limiter is holding it, another instance is already reading,
 * the service failed) the older copy is served with its age and the refresh fills the cache later.
 */
export interface BalanceOptions {
  /** How long a copy counts as fresh (default 15 s: at most 4 reads a minute from `balance`). */
  freshMs?: number;
  /** How long to wait for a refresh before serving the older copy (default 1.5 s). */
  waitForFreshMs?: number;
}

const CACHE_KEY = "balance:userinfo";
const REFRESH_LOCK_KEY = "balance:userinfo:refresh";
/** The older copy stays usable as a fallback for this long. */
const KEEP_MS = 30 * 60_000;
/** Longer than one userinfo call can take (limiter wait, timeout, retries), so two never overlap. */
const REFRESH_LOCK_MS = 20_000;

const snapshotSchema = z.object({ fetchedAt: z.number(), info: userinfoSchema });
type Snapshot = z.infer<typeof snapshotSchema>;

/** One refresh per store (per process), joined by every caller while it runs. */
const inflight = new WeakMap<Store, Promise<Snapshot>>();

/** `ownsLock`: this call took the shared refresh lock and must free it. */
function refresh(deps: CoreDeps, ownsLock: boolean): Promise<Snapshot> {
  const running = inflight.get(deps.store);
  if (running) return running;
  const started = (async () => {
    const info: Userinfo = await deps.service.account.userinfo();
    const snapshot = { fetchedAt: deps.now(), info };
    await setJson(deps.store, CACHE_KEY, snapshot, KEEP_MS);
    return snapshot;
  })().finally(() => {
    inflight.delete(deps.store);
    if (ownsLock) void deps.store.del(REFRESH_LOCK_KEY).catch(() => {});
  });
  inflight.set(deps.store, started);
  return started;
}

type Raced = { ok: true; snapshot: Snapshot } | { ok: false; error: unknown } | undefined;

/** The refresh's outcome, or undefined when it takes longer than `ms`. */
async function within(promise: Promise<Snapshot>, ms: number): Promise<Raced> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (snapshot): Raced => ({ ok: true, snapshot }),
        (error: unknown): Raced => ({ ok: false, error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function readBalance(deps: CoreDeps, freshMs: number, waitMs: number): Promise<BalanceView> {
  const now = deps.now();
  const cached = await getJson(deps.store, CACHE_KEY, snapshotSchema);
  if (cached && now >= cached.fetchedAt && now - cached.fetchedAt < freshMs) {
    return { ...cached, now };
  }
  // Nothing to fall back on: wait for the service whatever it takes (errors become the reply).
  if (!cached) return { ...(await refresh(deps, false)), now: deps.now() };
  const joining = inflight.has(deps.store);
  const locked = !joining && (await deps.store.setIfNotExists(REFRESH_LOCK_KEY, "1", REFRESH_LOCK_MS));
  if (!joining && !locked) {
    // Another instance is reading right now; its answer lands in the cache for the next ask.
    return { ...cached, now, stale: { reason: "rate_limit" } };
  }
  const outcome = await within(refresh(deps, locked), waitMs);
  if (outcome === undefined) return { ...cached, now: deps.now(), stale: { reason: "rate_limit" } };
  if (!outcome.ok) {
    deps.logger.warn({ err: outcome.error }, "userinfo refresh failed; serving the older copy");
    return { ...cached, now: deps.now(), stale: { reason: "error", line: toUserLine(outcome.error) } };
  }
  return { ...outcome.snapshot, now: deps.now() };
}

export function createBalanceCommand(options: BalanceOptions = {}): CommandDefinition {
  const freshMs = options.freshMs ?? 15_000;
  const waitMs = options.waitForFreshMs ?? 1_500;
  return {
    verb: "balance",
    role: "viewer",
    summary: "the service account's balance, spending and savings",
    usage: "balance",
    example: "balance",
    async run(ctx) {
      if (ctx.args.length > 0) return errorReply('balance takes no arguments: type just "balance"');
      const view = await readBalance(ctx.deps, freshMs, waitMs);
      return withRunway(ctx.deps, renderBalance(view), view.info.stats.balance);
    },
  };
}

export const balanceCommand = createBalanceCommand();
