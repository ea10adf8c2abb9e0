import { within } from "../../clock.js";
import { readSnapshot, startBalanceRefresh } from "../balance/balance-refresh.js";
import type { CommandDefinition } from "../command.js";
import type { CoreDeps } from "../deps.js";
import { toUserLine } from "../errors.js";
import { errorReply } from "../reply.js";
import { withRunway } from "../runway/index.js";
import { type BalanceView, renderBalance } from "./balance-render.js";

/**
 * `balance`: the account's balance and usage. `GET /apiv2/userinfo` allows 6 calls a minute per
 * IP, shared by every instance of the bot, so the answer is kept in the store (the reading quotes
 * use too, see balance/balance-refresh.ts): a copy younger than `freshMs` is served as is; an older
 * one is refreshed, but when no read slot is free right now, another instance is already reading,
 * the service failed or the refresh takes longer than `waitForFreshMs`, the older copy is served at
 * once with its age and the refresh fills the store later. With no copy at all and no free slot,
 * one line says when the next read is free: never a silent wait.
 */
export interface BalanceOptions {
  /** How long a copy counts as fresh (default 15 s: at most 4 reads a minute from `balance`). */
  freshMs?: number;
  /** How long to wait for a refresh before serving the older copy (default 1.5 s). */
  waitForFreshMs?: number;
}

type View = { view: BalanceView } | { line: string };

/** The line when there is no reading yet and none can be made right now. */
const notYet = (waitMs: number): string =>
  `The balance has not been read yet, and the service allows 6 account reads a minute: the next one is free in ${Math.max(1, Math.ceil(waitMs / 1000))} s and is queued; ask again then.`;

async function readBalance(deps: CoreDeps, freshMs: number, waitMs: number): Promise<View> {
  const now = deps.now();
  const cached = await readSnapshot(deps.store);
  if (cached && now >= cached.fetchedAt && now - cached.fetchedAt < freshMs) {
    return { view: { ...cached, now } };
  }
  const refresh = await startBalanceRefresh(deps);
  if (!refresh) {
    // Another instance is reading right now; its answer lands in the store for the next ask.
    if (cached) return { view: { ...cached, now, stale: { reason: "rate_limit" } } };
    return { line: "The balance is being read right now (by another instance); ask again in a few seconds." };
  }
  const outcome = await within(refresh.first, waitMs);
  if (outcome?.kind === "read") return { view: { ...outcome.snapshot, now: deps.now() } };
  if (outcome?.kind === "no_slot") {
    if (cached) return { view: { ...cached, now, stale: { reason: "rate_limit", waitMs: outcome.waitMs } } };
    return { line: notYet(outcome.waitMs) };
  }
  if (cached) {
    if (outcome === undefined)
      return { view: { ...cached, now: deps.now(), stale: { reason: "rate_limit" } } };
    return {
      view: { ...cached, now: deps.now(), stale: { reason: "error", line: toUserLine(outcome.error) } },
    };
  }
  // Nothing to fall back on and a slot was free: the service is just slow, or failed (the error
  // becomes the reply).
  if (outcome?.kind === "failed") throw outcome.error;
  return { view: { ...(await refresh.done), now: deps.now() } };
}

export function createBalanceCommand(options: BalanceOptions = {}): CommandDefinition {
  const freshMs = options.freshMs ?? 15_000;
  const waitMs = options.waitForFreshMs ?? 1_500;
  return {
    verb: "balance",
    role: "viewer",
    summary: "balance, spending and savings",
    usage: "balance",
    example: "balance",
    async run(ctx) {
      if (ctx.args.length > 0) return errorReply('balance takes no arguments: type just "balance"');
      const read = await readBalance(ctx.deps, freshMs, waitMs);
      if ("line" in read) return errorReply(read.line);
      return withRunway(ctx.deps, renderBalance(read.view), read.view.info.stats.balance);
    },
  };
}

export const balanceCommand = createBalanceCommand();
